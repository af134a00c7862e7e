from functools import partial
from itertools import islice

from .recipes import take

__all__ = [
    'chunked',
    'first',
]


def chunked(iterable, n):
    """Break *iterable* into lists of length *n*.

    >>> list(chunked([1, 2, 3, 4], 2))
    [[1, 2], [3, 4]]
    """
    return iter(partial(take, n, iter(iterable)), [])


def first(iterable, default=None):
    return next(islice(iterable, 1), default)
