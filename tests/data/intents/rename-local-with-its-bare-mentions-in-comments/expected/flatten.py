def flatten(value, seen):
    instance = value
    # if instance is nonrecursive, return it as it is
    if not isinstance(instance, (list, tuple)):
        return [instance]
    # every instance is seen once; the value of each item is flattened in turn
    seen.add(id(instance))
    out = []
    for item in instance:
        out.extend(flatten(item, seen))
    return out
