import os
import sys


def setup(config):
    """Prepare things."""
    path = config.path
    name = os.path.basename(path)  # the base
    size = len(name)
    return size
