import pytest

import main
from main import (
    LineItem, compute_totals, european_amount, invoice_id, parse_line, parse_order,
    render_invoice, render_item, shipping_cost, summarize_orders,
)


ORDER = """# demo order
sku: A100, qty: 2, price: 12.5
sku: B200, qty: 1, price: 30, discount: 10

sku: C300, qty: 4, price: 3.25
sku: D400, qty: 1, price: 1200.125, discount: 80
"""


# --- constants --------------------------------------------------------------

def test_constants():
    assert main.TAX_RATES == {"standard": 20, "reduced": 5, "zero": 0}
    assert main.MAX_DISCOUNT == 50
    assert main.FREE_SHIPPING_THRESHOLD == 100
    assert main.SHIPPING_FEE == 7.5
    assert main.BULK_UNITS == 5
    assert main.BULK_SURCHARGE == 1.0
    assert main.BULK_FEE_PER_UNIT == 0.5


# --- LineItem ---------------------------------------------------------------

def test_line_item_amounts():
    item = LineItem("A", 3, 10.0, discount=20)
    assert item.sku == "A"
    assert item.quantity == 3
    assert item.unit_price == 10.0
    assert item.discount == 20
    assert item.gross() == 30.0
    assert item.discount_amount() == 6.0
    assert item.net() == 24.0


def test_line_item_default_discount():
    item = LineItem("A", 2, 4.0)
    assert item.discount == 0
    assert item.net() == 8.0


@pytest.mark.parametrize("given,expected", [(-5, 0), (0, 0), (49, 49), (50, 50), (51, 50), (90, 50)])
def test_line_item_discount_is_clamped(given, expected):
    assert LineItem("A", 1, 100.0, discount=given).discount == expected


def test_line_item_validation():
    with pytest.raises(ValueError, match="sku must not be empty"):
        LineItem("", 1, 1.0)
    with pytest.raises(ValueError, match="quantity must be at least 1, got 0"):
        LineItem("A", 0, 1.0)
    with pytest.raises(ValueError, match="unit price must not be negative, got -0.01"):
        LineItem("A", 1, -0.01)
    assert LineItem("A", 1, 0.0).net() == 0.0


# --- parsing ----------------------------------------------------------------

def test_parse_line():
    item = parse_line("sku: B200, qty: 3, price: 30, discount: 10")
    assert (item.sku, item.quantity, item.unit_price, item.discount) == ("B200", 3, 30.0, 10.0)
    plain = parse_line("price: 2.5, qty: 1, sku: X")
    assert (plain.sku, plain.quantity, plain.unit_price, plain.discount) == ("X", 1, 2.5, 0.0)


@pytest.mark.parametrize("text,field", [
    ("qty: 1, price: 2", "sku"),
    ("sku: A, price: 2", "qty"),
    ("sku: A, qty: 1", "price"),
])
def test_parse_line_missing_field(text, field):
    with pytest.raises(ValueError, match=f"missing field: {field}"):
        parse_line(text)


@pytest.mark.parametrize("text", [
    "sku: A, qty: one, price: 2",
    "sku: A, qty: 1, price: two",
    "sku: A, qty: 1, price: 2, discount: lots",
])
def test_parse_line_bad_numbers(text):
    with pytest.raises(ValueError, match="bad number in line: sku: A"):
        parse_line(text)


def test_parse_line_rejects_bad_syntax():
    with pytest.raises(ValueError, match="missing ':' in 'qty=1'"):
        parse_line("sku: A, qty=1, price: 2")


def test_parse_order():
    items = parse_order(ORDER)
    assert [item.sku for item in items] == ["A100", "B200", "C300", "D400"]
    assert [item.discount for item in items] == [0.0, 10.0, 0.0, 50]


def test_parse_order_empty():
    with pytest.raises(ValueError, match="order has no items"):
        parse_order("\n# only a comment\n   \n")


# --- shipping / totals ------------------------------------------------------

@pytest.mark.parametrize("subtotal,units,expected", [
    (99.99, 1, 7.5),
    (100, 1, 0.0),
    (100.01, 50, 0.0),
    (50, 5, 7.5),
    (50, 6, 9.0),
    (50, 9, 10.5),
])
def test_shipping_cost(subtotal, units, expected):
    assert shipping_cost(subtotal, units) == expected


def test_compute_totals_standard():
    totals = compute_totals(parse_order(ORDER))
    assert totals["gross"] == 1268.125
    assert totals["discount"] == 603.0625
    assert totals["subtotal"] == 665.0625
    assert totals["shipping"] == 0.0
    assert totals["tax"] == pytest.approx(133.0125)
    assert totals["total"] == pytest.approx(798.075)
    assert totals["units"] == 8
    assert totals["average_unit"] == pytest.approx(83.1328125)


def test_compute_totals_with_shipping_and_tax_classes():
    items = [LineItem("A", 6, 5.0), LineItem("B", 2, 10.0, discount=50)]
    reduced = compute_totals(items, tax_class="reduced")
    assert reduced["gross"] == 50.0
    assert reduced["discount"] == 10.0
    assert reduced["subtotal"] == 40.0
    assert reduced["shipping"] == 10.0
    assert reduced["tax"] == 2.5
    assert reduced["total"] == 52.5
    assert reduced["average_unit"] == 5.0
    zero = compute_totals(items, tax_class="zero")
    assert zero["tax"] == 0.0
    assert zero["total"] == 50.0


def test_compute_totals_empty_and_errors():
    totals = compute_totals([])
    assert totals["units"] == 0
    assert totals["average_unit"] is None
    assert totals["shipping"] == 7.5
    assert totals["total"] == 9.0
    with pytest.raises(ValueError, match="unknown tax class: luxury"):
        compute_totals([], tax_class="luxury")


# --- identifiers / formatting -----------------------------------------------

def test_invoice_id():
    assert invoice_id("Bob", 7) == "INV-00007-BOB"
    assert invoice_id("Zoë & Sons Trading Co.", 42) == "INV-00042-ZO_SONS_TRAD"
    assert invoice_id("Anna Maria Lee", 1) == "INV-00001-ANNA_MARIA_L"
    assert invoice_id("Anna Maria Lee Smith", 123456) == "INV-123456-ANNA_MARIA_L"
    assert invoice_id("!!!", 3) == "INV-00003-ANONYMOUS"


def test_invoice_id_bad_number():
    with pytest.raises(ValueError, match="invoice number must be positive"):
        invoice_id("Bob", 0)


def test_european_amount():
    assert european_amount(1234567.891) == "1.234.567,89"
    assert european_amount(0.5) == "0,50"
    assert european_amount(-1000) == "-1.000,00"


def test_render_item():
    assert render_item(LineItem("A1", 1200, 2.5), "USD", 2) == "A1      1,200       $2.50   $3,000.00"
    assert render_item(LineItem("B2", 2, 10.0, discount=25), "CHF", 1) == (
        "B2          2    10.0 CHF    15.0 CHF (-25%)"
    )
    assert render_item(LineItem("B2", 1, 10.0, discount=12.5), "EUR", 0) == (
        "B2          1         €10          €9 (-13%)"
    )
    assert render_item(LineItem("C", 1, 10.0, discount=0.5), "EUR", 2) == (
        "C           1      €10.00       €9.95 (-1%)"
    )
    assert render_item(LineItem("C", 1, 10.0, discount=0), "EUR", 2) == (
        "C           1      €10.00      €10.00"
    )


# --- end-to-end invoice -----------------------------------------------------

EXPECTED_INVOICE = """Invoice INV-00042-ZO_SONS_TRAD
Customer: Zoë & Sons Trad~
------------- page 1/2 --------------
A100        2     €12.500     €25.000
B200        1     €30.000     €27.000 (-10%)
------------- page 2/2 --------------
C300        4      €3.250     €13.000
D400        1  €1,200.125    €600.063 (-50%)
Subtotal.....................€665.063
Discount....................-€603.063
Shipping.......................€0.000
Tax 20%......................€133.013
Total........................€798.075
Units: 8"""


def test_render_invoice_full():
    text = render_invoice("Zoë & Sons Trading Co.", 42, ORDER, precision=3, page_size=2)
    assert text == EXPECTED_INVOICE


EXPECTED_SMALL = """Invoice INV-00007-BOB
Customer: Bob
------------- page 1/1 --------------
X           7       $2.00      $14.00
Subtotal.......................$14.00
Discount........................$0.00
Shipping........................$9.50
Tax 5%..........................$1.18
Total..........................$24.68
Units: 7"""


def test_render_invoice_usd_reduced():
    text = render_invoice("Bob", 7, "sku: X, qty: 7, price: 2", currency="usd", tax_class="reduced")
    assert text == EXPECTED_SMALL


def test_render_invoice_defaults():
    text = render_invoice("Ann", 3, ORDER)
    lines = text.split("\n")
    assert lines[0] == "Invoice INV-00003-ANN"
    assert lines[1] == "Customer: Ann"
    assert lines[2] == "------------- page 1/2 --------------"
    assert lines[3] == "A100        2      €12.50      €25.00"
    assert lines[6] == "------------- page 2/2 --------------"
    assert lines[7] == "D400        1   €1,200.13     €600.06 (-50%)"
    assert lines[-3] == "Tax 20%.......................€133.01"
    assert lines[-2] == "Total.........................€798.08"
    assert len(lines) == 14


def test_render_invoice_units_use_space_separator():
    text = render_invoice("Bulk", 9, "sku: S, qty: 1500, price: 0.1\nsku: T, qty: 1, price: 1",
                          currency="GBP", tax_class="zero", page_size=5)
    lines = text.split("\n")
    assert lines[-1] == "Units: 1 501"
    assert lines[3] == "S       1,500       £0.10     £150.00"
    assert lines[-2] == "Total" + "." * 25 + "£151.00"
    assert lines[-3] == "Tax 0%" + "." * 26 + "£0.00"
    assert lines[-4] == "Shipping" + "." * 24 + "£0.00"


def test_render_invoice_propagates_errors():
    with pytest.raises(ValueError, match="unknown tax class: none"):
        render_invoice("Bob", 1, "sku: X, qty: 1, price: 2", tax_class="none")
    with pytest.raises(ValueError, match="size must be at least 1"):
        render_invoice("Bob", 1, "sku: X, qty: 1, price: 2", page_size=0)


# --- summaries --------------------------------------------------------------

def test_summarize_orders():
    summary = summarize_orders([
        ("a", "sku: X, qty: 1, price: 10"),
        ("b", "sku: Y, qty: 3, price: 500.05"),
        ("c", "sku: Z, qty: 2, price: 40"),
    ])
    # a: (10 + 7.5) * 1.05 = 18.375; b: 1500.15 * 1.05 = 1575.1575; c: (80 + 7.5) * 1.05 = 91.875
    assert summary == {
        "count": "3",
        "grand_total": "£1,685.41",
        "grand_total_eu": "1.685,41",
        "average": "£561.8",
        "largest": "b",
    }


def test_summarize_orders_currency_and_ties():
    summary = summarize_orders([("first", "sku: X, qty: 1, price: 200"),
                                ("second", "sku: Y, qty: 2, price: 100")], currency="JPY")
    assert summary["largest"] == "first"
    assert summary["grand_total"] == "¥420.00"
    assert summary["average"] == "¥210.0"


def test_summarize_orders_single_and_empty():
    summary = summarize_orders([("solo", "sku: X, qty: 1, price: 0")])
    assert summary["largest"] is None
    assert summary["grand_total"] == "£7.88"
    assert summary["average"] == "£7.9"
    summary = summarize_orders([("free", "sku: X, qty: 1, price: 0"),
                                ("paid", "sku: Y, qty: 1, price: 0.01")])
    assert summary["largest"] == "paid"
    assert summary["count"] == "2"
    with pytest.raises(ValueError, match="no orders to summarise"):
        summarize_orders([])
