"""A small shop."""

from .prices import fetch_total, unit_price

__all__ = ["fetch_total", "unit_price"]
