import pytest

from ledger import Item, Ledger, PricingError, StockError
from ledger import report


@pytest.fixture
def ledger():
    led = Ledger()
    led.register(Item("HW-100", "Hammer", 1000, reorder_level=3, reorder_qty=6))
    led.register(Item("SW-200", "Editor", 5000))
    led.register(Item("AC-300", "Cable", 120))
    led.register(Item("AC-400", "Plug", 90, reorder_level=0, reorder_qty=4))
    led.receive("HW-100", 3)
    led.receive("HW-100", 4, unit_cost=1101)
    led.receive("SW-200", 300, unit_cost=5001)
    led.receive("AC-300", 2, unit_cost=125)
    led.receive("AC-300", 1, unit_cost=126)
    return led


class TestFormatMoney:
    @pytest.mark.parametrize(
        "cents,expected",
        [
            (0, "$0.00"),
            (5, "$0.05"),
            (150, "$1.50"),
            (99999, "$999.99"),
            (100000, "$1,000.00"),
            (99999999, "$999,999.99"),
            (123456789, "$1,234,567.89"),
            (-150, "-$1.50"),
            (-100000, "-$1,000.00"),
        ],
    )
    def test_defaults(self, cents, expected):
        assert report.format_money(cents) == expected

    def test_symbol_and_separator(self):
        assert report.format_money(123456789, symbol="EUR ", sep=".") == "EUR 1.234.567.89"
        assert report.format_money(-5, symbol="") == "-0.05"


class TestValuation:
    def test_rows_default_rounding(self, ledger):
        assert report.valuation_rows(ledger) == [
            {"sku": "AC-300", "on_hand": 3, "value": 376, "average": 125},
            {"sku": "HW-100", "on_hand": 7, "value": 7404, "average": 1058},
            {"sku": "SW-200", "on_hand": 300, "value": 1500300, "average": 5001},
        ]

    def test_rows_explicit_rounding(self, ledger):
        rows = report.valuation_rows(ledger, rounding="up")
        assert [row["average"] for row in rows] == [126, 1058, 5001]
        rows = report.valuation_rows(ledger, rounding="down")
        assert [row["average"] for row in rows] == [125, 1057, 5001]

    def test_rows_skip_empty(self):
        led = Ledger()
        led.register(Item("HW-1A", "Nail", 3))
        assert report.valuation_rows(led) == []
        led.receive("HW-1A", 1)
        assert len(report.valuation_rows(led)) == 1

    def test_report_text(self, ledger):
        assert report.valuation_report(ledger) == (
            "AC-300           3       $1.25         $3.76\n"
            "HW-100           7      $10.57        $74.04\n"
            "SW-200         300      $50.01    $15,003.00\n"
            "TOTAL                             $15,080.80"
        )

    def test_report_symbol_and_separator(self, ledger):
        text = report.valuation_report(ledger, symbol="EUR ", sep=".")
        lines = text.split("\n")
        assert lines[2] == "SW-200         300   EUR 50.01 EUR 15.003.00"
        assert lines[3] == "TOTAL                          EUR 15.080.80"

    def test_report_empty(self):
        led = Ledger()
        assert report.valuation_report(led) == "TOTAL" + " " * 34 + "$0.00"


class TestLowStock:
    def test_default_uses_available(self, ledger):
        assert report.low_stock(ledger) == [("AC-300", 3, 12), ("AC-400", 0, 4)]
        ledger.reserve("HW-100", 4)
        assert report.low_stock(ledger) == [
            ("AC-300", 3, 12),
            ("AC-400", 0, 4),
            ("HW-100", 3, 6),
        ]
        ledger.reserve("HW-100", 1)
        assert report.low_stock(ledger)[2] == ("HW-100", 2, 7)

    def test_on_hand_mode(self, ledger):
        ledger.reserve("HW-100", 5)
        assert report.low_stock(ledger, use_available=False) == [
            ("AC-300", 3, 12),
            ("AC-400", 0, 4),
        ]

    def test_reorder_cost_ignores_reservations(self, ledger):
        assert report.reorder_cost(ledger) == 12 * 120 + 4 * 90
        ledger.reserve("HW-100", 5)
        assert report.reorder_cost(ledger) == 1800
        ledger.ship("HW-100", 5, from_reserved=True)
        assert report.reorder_cost(ledger) == 1800 + 7 * 1000


class TestQuote:
    def test_retail_quote(self, ledger):
        assert report.quote(ledger, "sw-200", 20) == {
            "subtotal": 140500,
            "discount": 7025,
            "tax": 8008,
            "total": 141483,
            "sku": "SW-200",
            "unit_price": 7025,
        }

    def test_wholesale_quote(self, ledger):
        assert report.quote(ledger, "SW-200", 20, wholesale=True) == {
            "subtotal": 140500,
            "discount": 11240,
            "tax": 7756,
            "total": 137016,
            "sku": "SW-200",
            "unit_price": 7025,
        }

    def test_price_uses_cost_rounded_up(self, ledger):
        # average 125.33 rounds up to 126 -> 176.4 -> 177 -> next 25 = 200
        result = report.quote(ledger, "AC-300", 2)
        assert result["unit_price"] == 200
        assert result["tax"] == 24
        assert result["total"] == 424

    def test_custom_margin(self, ledger):
        assert report.quote(ledger, "SW-200", 1, margin=0)["unit_price"] == 5025

    def test_availability_boundary(self, ledger):
        ledger.reserve("HW-100", 2)
        assert report.quote(ledger, "HW-100", 5)["subtotal"] == 7500
        with pytest.raises(StockError, match="only 5 of HW-100 available"):
            report.quote(ledger, "HW-100", 6)

    def test_constants(self):
        assert report.REPORT_TAX_RATE == 600
        assert report.QUOTE_MARGIN == 40
        assert report.QUOTE_STEP == 25
        assert report.WHOLESALE_TIERS == ((200, 20), (20, 8))


class TestMargin:
    def test_positive(self, ledger):
        # revenue 3000, cost 2 * 1057 (rounded down) = 2114
        assert report.margin_bp(ledger, "HW-100", 2) == 2953

    def test_retail(self, ledger):
        assert report.margin_bp(ledger, "SW-200", 20) == 2506

    def test_negative_with_zero_margin(self, ledger):
        assert report.margin_bp(ledger, "SW-200", 20, margin=0) == -476
        assert report.margin_bp(ledger, "SW-200", 20, margin=0, wholesale=True) == -817

    @pytest.mark.parametrize(
        "cost,qty,margin,expected",
        [(113, 1, 40, 3542), (113, 10, 40, 3200), (148, 10, 0, -385), (148, 50, 0, -962)],
    )
    def test_basis_points_truncate(self, cost, qty, margin, expected):
        led = Ledger()
        led.register(Item("HW-1A", "Widget", cost))
        led.receive("HW-1A", 60)
        assert report.margin_bp(led, "HW-1A", qty, margin=margin) == expected

    def test_zero_revenue(self):
        led = Ledger()
        led.register(Item("HW-1A", "Sample", 0))
        led.receive("HW-1A", 2)
        assert report.margin_bp(led, "HW-1A", 1) == 0


class TestInvoiceSplit:
    def test_split(self, ledger):
        totals = report.quote(ledger, "SW-200", 20)
        assert report.invoice_split(totals, 3) == [47161, 47161, 47161]
        assert report.invoice_split({"total": 1001}, 2) == [501, 500]

    def test_split_guard(self):
        with pytest.raises(PricingError, match="parts must be at least 1"):
            report.invoice_split({"total": 10}, 0)
