def ready(a, b):
    return ((a)   # first
            or
            b)
