def scaler(factor):
    value = factor * 2
    return lambda x: x * value
