from math import floor, ceil, sqrt
import os


def f(x):
    return floor(x)
