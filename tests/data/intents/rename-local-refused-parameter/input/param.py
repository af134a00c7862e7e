def clamp(value, low, high):
    value = max(low, value)
    return min(high, value)
