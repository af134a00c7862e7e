def label(n):
    return ("big" if n > 10 else
            "small")
