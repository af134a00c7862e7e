import os
import sys
from math import ceil


def pages(count, size):
    return ceil(count / size)


def where():
    return os.getcwd(), sys.argv[0]
