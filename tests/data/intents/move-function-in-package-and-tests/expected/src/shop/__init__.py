"""A small shop."""

from .pricing import total
from .rates import discount, rate

__all__ = ["discount", "rate", "total"]
