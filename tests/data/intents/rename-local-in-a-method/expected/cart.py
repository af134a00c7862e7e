class Cart:
    def __init__(self):
        self.items = {}

    def total(self, prices):
        entries = sorted(self.items.items())
        return sum(prices[sku] * n for sku, n in entries if n > 0)
