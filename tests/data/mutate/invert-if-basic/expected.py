def sign(x):
    if not (x >= 0):
        label = "negative"
        value = -1
    else:
        label = "positive"
        value = 1
    return label, value
