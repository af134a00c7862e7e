from ledger import pricing


def invoice_split(total, payments):
    return split_evenly(total, payments)


def split_evenly(amount, parts):
    if parts < 1:
        raise pricing.PricingError("parts must be at least 1")
    base, extra = divmod(amount, parts)
    return [base + 1 if i < extra else base for i in range(parts)]
