"""A small shop."""

from .pricing import discount, total
from .rates import rate

__all__ = ["discount", "rate", "total"]
