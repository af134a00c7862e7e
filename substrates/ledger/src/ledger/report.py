"""Valuation, low-stock and quote reports built on the ledger and pricing."""

from . import pricing
from .stock import StockError

REPORT_TAX_RATE = 600
QUOTE_MARGIN = 40
QUOTE_STEP = 25
WHOLESALE_TIERS = ((200, 20), (20, 8))


def format_money(cents, symbol="$", sep=","):
    """Format integer cents as e.g. '$1,234.05' (negative as '-$1.00')."""
    negative = cents < 0
    if negative:
        cents = -cents
    dollars, rest = divmod(cents, 100)
    digits = str(dollars)
    groups = []
    while len(digits) > 3:
        groups.insert(0, digits[-3:])
        digits = digits[:-3]
    groups.insert(0, digits)
    text = symbol + sep.join(groups) + "." + str(rest).zfill(2)
    if negative:
        return "-" + text
    return text


def valuation_rows(ledger, rounding="half_up"):
    """One row per SKU with stock: on hand, total value, average unit cost."""
    rows = []
    for sku in ledger.skus():
        on_hand = ledger.on_hand(sku)
        if on_hand == 0:
            continue
        rows.append({
            "sku": sku,
            "on_hand": on_hand,
            "value": ledger.valuation(sku),
            "average": ledger.average_cost(sku, rounding=rounding),
        })
    return rows


def valuation_report(ledger, symbol="$", sep=","):
    """Fixed-width text table of stock value with a total line."""
    rows = valuation_rows(ledger, rounding="down")
    lines = []
    total = 0
    for row in rows:
        total += row["value"]
        value = format_money(row["value"], symbol=symbol, sep=sep)
        average = format_money(row["average"], symbol=symbol, sep=sep)
        lines.append(f"{row['sku']:<12}{row['on_hand']:>6}{average:>12}{value:>14}")
    grand = format_money(total, symbol=symbol, sep=sep)
    lines.append(f"{'TOTAL':<12}{'':>6}{'':>12}{grand:>14}")
    return "\n".join(lines)


def low_stock(ledger, use_available=True):
    """Return (sku, level, suggested order) for items at or below reorder level."""
    rows = []
    for sku in ledger.skus():
        item = ledger.item(sku)
        if use_available:
            level = ledger.available(sku)
        else:
            level = ledger.on_hand(sku)
        if not item.needs_reorder(level):
            continue
        suggested = item.reorder_qty
        shortfall = item.reorder_level - level
        if shortfall > 0:
            suggested += shortfall
        rows.append((sku, level, suggested))
    return rows


def quote(ledger, sku, qty, wholesale=False, margin=QUOTE_MARGIN):
    """Price ``qty`` units of ``sku`` from its average cost."""
    item = ledger.item(sku)
    if qty > ledger.available(sku):
        raise StockError(f"only {ledger.available(sku)} of {item.sku} available")
    cost = ledger.average_cost(sku, rounding="up")
    price = pricing.markup_price(cost, margin=margin, step=QUOTE_STEP)
    tiers = pricing.DEFAULT_TIERS
    if wholesale:
        tiers = WHOLESALE_TIERS
    totals = pricing.line_total(price, qty, rate=REPORT_TAX_RATE, tiers=tiers,
                                rounding="half_even")
    totals["sku"] = item.sku
    totals["unit_price"] = price
    return totals


def margin_bp(ledger, sku, qty, wholesale=False, margin=QUOTE_MARGIN):
    """Profit on a quote in basis points of net revenue (may be negative)."""
    totals = quote(ledger, sku, qty, wholesale=wholesale, margin=margin)
    revenue = totals["subtotal"] - totals["discount"]
    if revenue == 0:
        return 0
    cost = ledger.average_cost(sku, rounding="down") * qty
    profit = revenue - cost
    if profit < 0:
        return -pricing.divide(-profit * 10000, revenue, rounding="down")
    return pricing.divide(profit * 10000, revenue, rounding="down")


def invoice_split(totals, payments):
    """Split a quote's total into ``payments`` instalments, largest first."""
    return pricing.split_evenly(totals["total"], payments)


def reorder_cost(ledger):
    """Standard cost of restocking items that are physically low on the shelf."""
    total = 0
    for sku, level, suggested in low_stock(ledger, use_available=False):
        total += suggested * ledger.item(sku).unit_cost
    return total
