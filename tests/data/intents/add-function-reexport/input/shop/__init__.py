"""A tiny shop."""

from .cart import Cart, cart_total, merge_carts

__all__ = [
    "Cart",
    "cart_total",
    "merge_carts",
]
