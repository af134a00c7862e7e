def weighted(values, weights):
    """Weighted mean; `result` holds the running sum."""
    result = 0.0
    for value, weight in zip(values, weights):
        result += value * weight  # `result` grows
    total = sum(weights)
    if not total:
        raise ValueError("no result without weights")
    result = result / total
    print(f"result={result:.2f}", {"result": result})
    return dict(result=result)["result"]
