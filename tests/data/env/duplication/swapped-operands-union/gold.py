def compare(left, op, right):
    if op == "==":
        return left == right
    if op == ">":
        return left > right
    raise ValueError(op)
