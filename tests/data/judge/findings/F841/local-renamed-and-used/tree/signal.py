def normalise(values, top):
    capped = [min(v, top) for v in values]
    return [v / top for v in capped]
