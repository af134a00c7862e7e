def normalise(values, top):
    clipped = [min(v, top) for v in values]
    return [v / top for v in values]
