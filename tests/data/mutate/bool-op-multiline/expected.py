def ready(a, b):
    return ((a)   # first
            and
            b)
