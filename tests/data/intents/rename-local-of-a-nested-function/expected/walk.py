def tree_sizes(tree):
    def size(node):
        tally = 1
        for child in node.get("children", []):
            tally += size(child)
        return tally

    data = [size(node) for node in tree]
    return data
