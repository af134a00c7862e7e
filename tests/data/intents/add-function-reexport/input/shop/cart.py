"""Carts of priced lines."""

__all__ = ["Cart", "cart_total", "merge_carts"]


class Cart:
    def __init__(self, lines=()):
        self.lines = list(lines)


def cart_total(cart):
    """Return the sum of the cart's lines."""
    return sum(price * qty for price, qty in cart.lines)


def merge_carts(first, second):
    """Return one cart holding the lines of both."""
    return Cart(first.lines + second.lines)
