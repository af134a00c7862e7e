from math import floor
import os


def f(x):
    return floor(x)
