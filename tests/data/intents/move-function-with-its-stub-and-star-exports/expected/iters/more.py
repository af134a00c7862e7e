from itertools import islice

__all__ = [
    'first',
]


def first(iterable, default=None):
    return next(islice(iterable, 1), default)
