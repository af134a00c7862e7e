def pair(a, b):
    return (a,
            b)
