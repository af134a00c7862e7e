"""Memoised number helpers."""

import functools


@functools.lru_cache(maxsize=None)
def fib(n):
    """Return the n-th Fibonacci number."""
    return n if n < 2 else fib(n - 1) + fib(n - 2)


# Factorials grow fast; callers keep n small.
@functools.lru_cache(maxsize=None)
def factorial(n):
    """Return n!."""
    return 1 if n < 2 else n * factorial(n - 1)


def triangle(n):
    """Return the n-th triangular number."""
    return n * (n + 1) // 2
