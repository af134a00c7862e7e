"""Prices and carts: the tiny substrate the selection cases change."""

RATE = 20


def with_tax(amount):
    return amount + amount * RATE // 100


def discount(amount, percent):
    if percent < 0:
        raise ValueError("negative discount")
    return amount - amount * percent // 100


def unused(value):
    return value * 2


class Cart:
    currency = "EUR"

    def __init__(self):
        self.items = []

    def add(self, amount):
        self.items.insert(0, amount)
        return self

    def total(self):
        def rounded(value):
            return value - value % 5

        return rounded(sum(with_tax(a) for a in self.items))
