"""A tiny shop."""

from .cart import Cart, cart_total

__all__ = [
    "Cart",
    "cart_total",
]
