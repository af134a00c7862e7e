"""One function."""

import os


def only():
    return os.sep
