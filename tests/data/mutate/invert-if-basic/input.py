def sign(x):
    if x >= 0:
        label = "positive"
        value = 1
    else:
        label = "negative"
        value = -1
    return label, value
