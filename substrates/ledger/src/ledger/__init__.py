"""Inventory ledger with FIFO cost lots, pricing and reports."""

from .items import Item, ItemError, check_digit, normalize_sku, sku_category
from .pricing import PricingError
from .stock import Ledger, StockError

__all__ = [
    "Item",
    "ItemError",
    "Ledger",
    "PricingError",
    "StockError",
    "check_digit",
    "normalize_sku",
    "sku_category",
]
