from shop import prices
from shop.prices import fetch_total as total_of


def checkout(cart):
    return prices.fetch_total(cart), total_of(cart)
