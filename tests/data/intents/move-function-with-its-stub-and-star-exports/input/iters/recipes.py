from itertools import islice

__all__ = [
    'tail',
    'take',
]


def take(n, iterable):
    return list(islice(iterable, n))


def tail(n, iterable):
    return list(iterable)[-n:]
