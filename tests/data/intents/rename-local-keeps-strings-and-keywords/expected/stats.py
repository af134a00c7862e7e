def weighted(values, weights):
    """Weighted mean; `result` holds the running sum."""
    result = 0.0
    for value, weight in zip(values, weights):
        result += value * weight  # `result` grows
    total = sum(weights)
    if not total:
        raise ValueError("no res without weights")
    result = result / total
    print(f"res={result:.2f}", {"res": result})
    return dict(res=result)["res"]
