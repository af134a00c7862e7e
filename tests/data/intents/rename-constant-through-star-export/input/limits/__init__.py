from .core import *  # noqa: F403
