def weighted(values, weights):
    """Weighted mean; `res` holds the running sum."""
    res = 0.0
    for value, weight in zip(values, weights):
        res += value * weight  # `res` grows
    total = sum(weights)
    if not total:
        raise ValueError("no res without weights")
    res = res / total
    print(f"res={res:.2f}", {"res": res})
    return dict(res=res)["res"]
