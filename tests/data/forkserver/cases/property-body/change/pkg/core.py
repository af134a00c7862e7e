"""A tiny module whose functions are wrapped, bound and nested in the ways real code is."""

import functools


def decorate(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        return fn(*args)

    return wrapper


@decorate
def double(x):
    return x * 2


class Base:
    def greet(self):
        return "base"


class Child(Base):
    def greet(self):
        return "child"

    @staticmethod
    def triple(x):
        return x * 3

    @property
    def name(self):
        return "kid"


def spin(n):
    return n


def shout(text):
    """Upper-cases text."""
    return text.upper()


def later(x):
    return x + 1
