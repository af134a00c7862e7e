class PricingError(Exception):
    pass


def tax(amount):
    return amount // 5


def split_evenly(amount, parts):
    if parts < 1:
        raise PricingError("parts must be at least 1")
    base, extra = divmod(amount, parts)
    return [base + 1 if i < extra else base for i in range(parts)]
