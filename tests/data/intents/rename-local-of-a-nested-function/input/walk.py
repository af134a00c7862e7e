def tree_sizes(tree):
    def size(node):
        cnt = 1
        for child in node.get("children", []):
            cnt += size(child)
        return cnt

    data = [size(node) for node in tree]
    return data
