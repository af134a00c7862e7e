from shop import prices
from shop.prices import get_total as total_of


def checkout(cart):
    return prices.get_total(cart), total_of(cart)
