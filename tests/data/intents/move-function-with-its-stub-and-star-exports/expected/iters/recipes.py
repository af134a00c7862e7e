from functools import partial
from itertools import islice

__all__ = [
    'chunked',
    'tail',
    'take',
]


def take(n, iterable):
    return list(islice(iterable, n))


def tail(n, iterable):
    return list(iterable)[-n:]


def chunked(iterable, n):
    """Break *iterable* into lists of length *n*.

    >>> list(chunked([1, 2, 3, 4], 2))
    [[1, 2], [3, 4]]
    """
    return iter(partial(take, n, iter(iterable)), [])
