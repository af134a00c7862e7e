from functools import partial
from itertools import islice

__all__ = [
    'chunked',
    'first',
    'take',
]


def chunked(iterable, n):
    """Break *iterable* into lists of length *n*.

    >>> list(chunked([1, 2, 3, 4], 2))
    [[1, 2], [3, 4]]
    """
    return iter(partial(take, n, iter(iterable)), [])


def first(iterable, default=None):
    return next(islice(iterable, 1), default)


def take(n, iterable):
    return list(islice(iterable, n))
