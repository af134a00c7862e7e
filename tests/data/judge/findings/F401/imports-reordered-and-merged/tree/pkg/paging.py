from math import ceil
import sys, os


def pages(count, size):
    return ceil(count / size)


def where():
    return os.getcwd(), sys.argv[0]
