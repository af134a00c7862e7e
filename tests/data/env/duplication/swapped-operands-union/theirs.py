def compare(left, op, right):
    if op == "==":
        return left == right
    if op == ">":
        return right > left
    raise ValueError(op)
