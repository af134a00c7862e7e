def normalise(data, method):
    outcome = [x for x in data if x is not None]
    if method == "sorted":
        outcome = sorted(outcome)
    elif method == "reversed":
        outcome = list(reversed(outcome))
    return outcome
