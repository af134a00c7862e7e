__all__ = [
    'tail',
]


def tail(n, iterable):
    return list(iterable)[-n:]
