class PricingError(Exception):
    pass


def tax(amount):
    return amount // 5
