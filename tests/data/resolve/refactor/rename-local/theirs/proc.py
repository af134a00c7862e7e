def normalise(data, method):
    result = [x for x in data if x is not None]
    if method == "sorted":
        result = sorted(result)
    elif method == "reversed":
        result = list(reversed(result))
    return result
