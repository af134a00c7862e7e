"""Exchange rates, conversion and formatting: a substrate whose tests share state."""

import functools
import time

PRECISION = None


@functools.lru_cache(maxsize=None)
def rate(code):
    table = {"eur": 2, "usd": 3}
    return table[code]


def convert(amount, code):
    return amount * rate(code)


def fmt(value):
    return format(value, ".%df" % PRECISION)


def settle(amount):
    time.sleep(0)
    return amount
