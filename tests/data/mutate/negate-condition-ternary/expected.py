def label(n):
    return ("big" if not (n > 10) else
            "small")
