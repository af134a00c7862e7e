"""Iteration helpers."""

from .more import *  # noqa
from .recipes import *  # noqa
