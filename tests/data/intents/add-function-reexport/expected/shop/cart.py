"""Carts of priced lines."""

__all__ = ["Cart", "cart_total"]


class Cart:
    def __init__(self, lines=()):
        self.lines = list(lines)


def cart_total(cart):
    """Return the sum of the cart's lines."""
    return sum(price * qty for price, qty in cart.lines)
