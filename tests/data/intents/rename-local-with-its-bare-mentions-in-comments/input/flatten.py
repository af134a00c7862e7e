def flatten(value, seen):
    obj = value
    # if obj is nonrecursive, return it as it is
    if not isinstance(obj, (list, tuple)):
        return [obj]
    # every obj is seen once; the value of each item is flattened in turn
    seen.add(id(obj))
    out = []
    for item in obj:
        out.extend(flatten(item, seen))
    return out
