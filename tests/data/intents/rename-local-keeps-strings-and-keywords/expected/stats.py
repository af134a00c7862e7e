def weighted(values, weights):
    """Weighted mean; `outcome` holds the running sum."""
    outcome = 0.0
    for value, weight in zip(values, weights):
        outcome += value * weight  # `outcome` grows
    total = sum(weights)
    if not total:
        raise ValueError("no result without weights")
    outcome = outcome / total
    print(f"result={outcome:.2f}", {"result": outcome})
    return dict(result=outcome)["result"]
