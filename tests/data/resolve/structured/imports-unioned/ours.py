from math import floor, ceil
import os


def f(x):
    return floor(x)
