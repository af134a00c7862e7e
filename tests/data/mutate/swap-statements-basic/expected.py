import os
import sys


def setup(config):
    """Prepare things."""
    name = os.path.basename(path)  # the base
    path = config.path
    size = len(name)
    return size
