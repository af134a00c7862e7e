"""The stock ledger: receipts, shipments, reservations and adjustments.

Stock of each SKU is kept as a list of FIFO cost lots ``[quantity,
unit_cost]``; shipments and negative adjustments consume the oldest lots
first.  Reserved units stay on hand but cannot be shipped or adjusted
away unless shipped from the reservation.
"""

from .items import Item, normalize_sku
from .pricing import divide


class StockError(Exception):
    """Raised when a stock movement is not allowed."""


class Ledger:
    def __init__(self, max_lots=50):
        if max_lots < 1:
            raise StockError("max_lots must be at least 1")
        self.max_lots = max_lots
        self._items = {}
        self._lots = {}
        self._reserved = {}
        self._history = []

    # -- registry ---------------------------------------------------------

    def register(self, item):
        if not isinstance(item, Item):
            raise TypeError("only Item instances can be registered")
        if item.sku in self._items:
            raise StockError(f"duplicate sku {item.sku}")
        self._items[item.sku] = item
        self._lots[item.sku] = []
        self._reserved[item.sku] = 0
        return item

    def item(self, sku):
        key = normalize_sku(sku)
        if key not in self._items:
            raise StockError(f"unknown sku {key}")
        return self._items[key]

    def skus(self):
        return sorted(self._items)

    # -- quantities -------------------------------------------------------

    def on_hand(self, sku):
        item = self.item(sku)
        total = 0
        for lot in self._lots[item.sku]:
            total += lot[0]
        return total

    def reserved(self, sku):
        return self._reserved[self.item(sku).sku]

    def available(self, sku):
        return self.on_hand(sku) - self.reserved(sku)

    def lots(self, sku):
        item = self.item(sku)
        result = []
        for qty, cost in self._lots[item.sku]:
            result.append((qty, cost))
        return result

    # -- movements --------------------------------------------------------

    def receive(self, sku, qty, unit_cost=None):
        item = self.item(sku)
        if qty <= 0:
            raise StockError("receive quantity must be positive")
        if unit_cost is None:
            unit_cost = item.unit_cost
        if unit_cost < 0:
            raise StockError("unit cost must not be negative")
        lots = self._lots[item.sku]
        if lots and lots[-1][1] == unit_cost:
            lots[-1][0] += qty
        else:
            if len(lots) >= self.max_lots:
                raise StockError("too many cost lots")
            lots.append([qty, unit_cost])
        self._history.append(("receive", item.sku, qty))
        return self.on_hand(item.sku)

    def _consume(self, sku, qty):
        """Remove ``qty`` units from the oldest lots and return their cost."""
        lots = self._lots[sku]
        cost = 0
        remaining = qty
        while remaining > 0:
            lot = lots[0]
            take = min(lot[0], remaining)
            cost += take * lot[1]
            lot[0] -= take
            remaining -= take
            if lot[0] == 0:
                lots.pop(0)
        return cost

    def ship(self, sku, qty, from_reserved=False):
        """Ship ``qty`` units and return their FIFO cost."""
        item = self.item(sku)
        if qty <= 0:
            raise StockError("ship quantity must be positive")
        if from_reserved:
            if qty > self._reserved[item.sku]:
                raise StockError("cannot ship more than reserved")
            self._reserved[item.sku] -= qty
        elif qty > self.available(item.sku):
            raise StockError("insufficient available stock")
        cost = self._consume(item.sku, qty)
        self._history.append(("ship", item.sku, qty))
        return cost

    def reserve(self, sku, qty):
        item = self.item(sku)
        if qty <= 0:
            raise StockError("reserve quantity must be positive")
        if qty > self.available(item.sku):
            raise StockError("cannot reserve more than available")
        self._reserved[item.sku] += qty
        self._history.append(("reserve", item.sku, qty))
        return self._reserved[item.sku]

    def release(self, sku, qty):
        item = self.item(sku)
        if qty <= 0:
            raise StockError("release quantity must be positive")
        if qty > self._reserved[item.sku]:
            raise StockError("cannot release more than reserved")
        self._reserved[item.sku] -= qty
        self._history.append(("release", item.sku, qty))
        return self._reserved[item.sku]

    def adjust(self, sku, delta, reason):
        """Correct the count by ``delta`` units (e.g. after a stock take)."""
        item = self.item(sku)
        if delta == 0:
            raise StockError("adjustment must not be zero")
        if reason is None or not reason.strip():
            raise StockError("adjustment needs a reason")
        if delta > 0:
            self._lots[item.sku].append([delta, item.unit_cost])
        else:
            if -delta > self.available(item.sku):
                raise StockError("adjustment would remove reserved stock")
            self._consume(item.sku, -delta)
        self._history.append(("adjust", item.sku, delta))
        return self.on_hand(item.sku)

    # -- valuation and history -------------------------------------------

    def valuation(self, sku):
        item = self.item(sku)
        total = 0
        for qty, cost in self._lots[item.sku]:
            total += qty * cost
        return total

    def average_cost(self, sku, rounding="half_up"):
        qty = self.on_hand(sku)
        if qty == 0:
            return self.item(sku).unit_cost
        return divide(self.valuation(sku), qty, rounding=rounding)

    def history(self, sku=None, kind=None):
        key = None
        if sku is not None:
            key = normalize_sku(sku)
        rows = []
        for entry in self._history:
            if key is not None and entry[1] != key:
                continue
            if kind is not None and entry[0] != kind:
                continue
            rows.append(entry)
        return rows
