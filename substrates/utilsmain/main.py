"""Build a plain-text invoice from order lines such as 'sku: A1, qty: 2, price: 9.5'."""

from utils import (
    chunk, clamp, format_money, format_number, pad, parse_pairs, percent,
    safe_divide, slugify, truncate,
)


TAX_RATES = {"standard": 20, "reduced": 5, "zero": 0}
MAX_DISCOUNT = 50
FREE_SHIPPING_THRESHOLD = 100
SHIPPING_FEE = 7.5
BULK_UNITS = 5
BULK_SURCHARGE = 1.0
BULK_FEE_PER_UNIT = 0.5


class LineItem:
    def __init__(self, sku, quantity, unit_price, discount=0):
        if sku == "":
            raise ValueError("sku must not be empty")
        if quantity < 1:
            raise ValueError(f"quantity must be at least 1, got {quantity}")
        if unit_price < 0:
            raise ValueError(f"unit price must not be negative, got {unit_price}")
        self.sku = sku
        self.quantity = quantity
        self.unit_price = unit_price
        self.discount = clamp(discount, 0, MAX_DISCOUNT)

    def gross(self):
        return self.quantity * self.unit_price

    def discount_amount(self):
        return self.gross() * self.discount / 100

    def net(self):
        return self.gross() - self.discount_amount()


def parse_line(text):
    """Parse one 'key: value' comma separated order line into a LineItem."""
    fields = parse_pairs(text, item_sep=",", kv_sep=":")
    for name in ("sku", "qty", "price"):
        if name not in fields:
            raise ValueError(f"missing field: {name}")
    try:
        quantity = int(fields["qty"])
        price = float(fields["price"])
        discount = float(fields.get("discount", "0"))
    except ValueError:
        raise ValueError(f"bad number in line: {text}")
    return LineItem(fields["sku"], quantity, price, discount=discount)


def parse_order(text):
    """Parse many order lines, skipping blank lines and '#' comments."""
    items = []
    for raw in text.splitlines():
        line = raw.strip()
        if line == "" or line.startswith("#"):
            continue
        items.append(parse_line(line))
    if len(items) == 0:
        raise ValueError("order has no items")
    return items


def shipping_cost(subtotal, units):
    if subtotal >= FREE_SHIPPING_THRESHOLD:
        return 0.0
    fee = SHIPPING_FEE
    if units > BULK_UNITS:
        fee = fee + BULK_SURCHARGE + (units - BULK_UNITS) * BULK_FEE_PER_UNIT
    return fee


def compute_totals(items, tax_class="standard"):
    if tax_class not in TAX_RATES:
        raise ValueError(f"unknown tax class: {tax_class}")
    gross = 0.0
    discount = 0.0
    units = 0
    for item in items:
        gross += item.gross()
        discount += item.discount_amount()
        units += item.quantity
    subtotal = gross - discount
    shipping = shipping_cost(subtotal, units)
    tax = (subtotal + shipping) * TAX_RATES[tax_class] / 100
    return {
        "gross": gross,
        "discount": discount,
        "subtotal": subtotal,
        "shipping": shipping,
        "tax": tax,
        "total": subtotal + shipping + tax,
        "units": units,
        "average_unit": safe_divide(subtotal, units, default=None),
    }


def invoice_id(customer, number):
    if number < 1:
        raise ValueError("invoice number must be positive")
    slug = slugify(customer, sep="_", max_length=12)
    if slug == "":
        slug = "anonymous"
    return f"INV-{number:05d}-{slug.upper()}"


def european_amount(value):
    """Amount in continental style: 1.234,50"""
    return format_number(value, sep=".", point=",")


def render_item(item, currency, precision):
    qty = format_number(item.quantity, precision=0)
    price = format_money(item.unit_price, currency=currency, precision=precision)
    net = format_money(item.net(), currency=currency, precision=precision)
    row = pad(item.sku, 8) + pad(qty, 5, align="right")
    row = row + pad(price, 12, align="right") + pad(net, 12, align="right")
    if item.discount > 0:
        row = row + " (-" + percent(item.discount / 100, precision=0) + ")"
    return row


def render_invoice(customer, number, order_text, currency="EUR", tax_class="standard",
                   precision=2, page_size=3):
    """Render an invoice as text; items are split into pages of page_size."""
    items = parse_order(order_text)
    totals = compute_totals(items, tax_class=tax_class)
    lines = [
        "Invoice " + invoice_id(customer, number),
        "Customer: " + truncate(customer, width=16, suffix="~"),
    ]
    pages = chunk(items, page_size)
    page_no = 0
    for page in pages:
        page_no += 1
        lines.append(pad(f" page {page_no}/{len(pages)} ", 37, align="center", fill="-"))
        for item in page:
            lines.append(render_item(item, currency, precision))
    rate = TAX_RATES[tax_class]
    summary = [
        ("Subtotal", totals["subtotal"]),
        ("Discount", -totals["discount"]),
        ("Shipping", totals["shipping"]),
        (f"Tax {rate}%", totals["tax"]),
        ("Total", totals["total"]),
    ]
    for label, amount in summary:
        money = format_money(amount, currency=currency, precision=precision)
        lines.append(pad(label, 20, fill=".") + pad(money, 17, align="right", fill="."))
    lines.append("Units: " + format_number(totals["units"], precision=0, sep=" "))
    return "\n".join(lines)


def summarize_orders(orders, currency="GBP"):
    """Summarise several (customer, order_text) pairs; 'largest' is the customer
    with the biggest subtotal (first one wins ties, None if all are zero)."""
    if len(orders) == 0:
        raise ValueError("no orders to summarise")
    grand_total = 0.0
    largest = None
    largest_subtotal = 0.0
    for customer, order_text in orders:
        totals = compute_totals(parse_order(order_text), tax_class="reduced")
        grand_total += totals["total"]
        if totals["subtotal"] > largest_subtotal:
            largest = customer
            largest_subtotal = totals["subtotal"]
    average = safe_divide(grand_total, len(orders))
    return {
        "count": str(len(orders)),
        "grand_total": format_money(grand_total, currency=currency),
        "grand_total_eu": european_amount(grand_total),
        "average": format_money(average, currency=currency, precision=1),
        "largest": largest,
    }
