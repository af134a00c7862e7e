def run():
    return 1


def clamp(x, low, high):
    return max(low, min(x, high))
