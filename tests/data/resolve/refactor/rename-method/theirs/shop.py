class Basket:
    def __init__(self):
        self.items = []

    def add(self, price):
        self.items.append(price)

    def count(self):
        return len(self.items)

    def average(self):
        return self.price_sum() / self.count()

    def price_sum(self):
        return sum(self.items)


def checkout(basket):
    return basket.price_sum()
