from ledger import pricing


def invoice_split(total, payments):
    return pricing.split_evenly(total, payments)
