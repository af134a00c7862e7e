from ledger import pricing


def invoice_split(total, payments):
    return pricing.share_out(total, payments)
