def show(x):
    value = x * 2
    return f"{value=}"
