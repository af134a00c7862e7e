"""A small shop."""

from .prices import get_total, unit_price

__all__ = ["get_total", "unit_price"]
