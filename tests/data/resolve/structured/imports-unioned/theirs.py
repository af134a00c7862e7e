from math import floor, sqrt
import os


def f(x):
    return floor(x)
