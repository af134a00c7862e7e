def tree_sizes(tree):
    def size(node):
        count = 1
        for child in node.get("children", []):
            count += size(child)
        return count

    items = [size(node) for node in tree]
    return items
