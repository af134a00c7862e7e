def normalise(data, method):
    outcome = [x for x in data if x is not None]
    if method == "sorted":
        outcome = sorted(outcome)
    return outcome
