from ledger import pricing


def invoice_split(total, payments):
    return share_out(total, payments)


def share_out(amount, parts):
    if parts < 1:
        raise pricing.PricingError("parts must be at least 1")
    base, extra = divmod(amount, parts)
    return [base + 1 if i < extra else base for i in range(parts)]
