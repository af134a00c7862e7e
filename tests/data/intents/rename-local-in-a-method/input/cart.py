class Cart:
    def __init__(self):
        self.items = {}

    def total(self, prices):
        items = sorted(self.items.items())
        return sum(prices[sku] * n for sku, n in items if n > 0)
