import pytest

from ledger import PricingError
from ledger.pricing import (
    DEFAULT_TAX_RATE,
    DEFAULT_TIERS,
    apply_discount,
    discount_percent,
    divide,
    line_total,
    markup_price,
    split_evenly,
    tax,
)


class TestDivide:
    @pytest.mark.parametrize(
        "num,den,mode,expected",
        [
            (10, 5, "up", 2),
            (10, 5, "half_up", 2),
            (11, 5, "down", 2),
            (11, 5, "up", 3),
            (14, 5, "down", 2),
            (11, 5, "half_up", 2),
            (13, 5, "half_up", 3),
            (12, 5, "half_up", 2),
            (12, 5, "half_even", 2),
            (13, 5, "half_even", 3),
            (5, 2, "half_up", 3),
            (5, 2, "half_even", 2),
            (7, 2, "half_up", 4),
            (7, 2, "half_even", 4),
            (1, 2, "half_even", 0),
            (3, 2, "half_even", 2),
            (0, 7, "up", 0),
        ],
    )
    def test_modes(self, num, den, mode, expected):
        assert divide(num, den, rounding=mode) == expected

    def test_default_mode_is_half_up(self):
        assert divide(5, 2) == 3
        assert divide(9, 2) == 5

    def test_unknown_mode(self):
        with pytest.raises(PricingError, match="unknown rounding mode 'sideways'"):
            divide(10, 5, rounding="sideways")

    def test_denominator_guard(self):
        assert divide(3, 1) == 3
        with pytest.raises(PricingError, match="denominator must be positive"):
            divide(3, 0)
        with pytest.raises(PricingError, match="denominator"):
            divide(3, -1)

    def test_numerator_guard(self):
        assert divide(0, 3) == 0
        with pytest.raises(PricingError, match="numerator must not be negative"):
            divide(-1, 3)


class TestDiscountPercent:
    def test_default_tiers(self):
        assert DEFAULT_TIERS == ((100, 15), (50, 10), (10, 5))

    @pytest.mark.parametrize(
        "qty,expected",
        [(0, 0), (9, 0), (10, 5), (11, 5), (49, 5), (50, 10), (99, 10), (100, 15), (500, 15)],
    )
    def test_boundaries(self, qty, expected):
        assert discount_percent(qty) == expected

    def test_custom_tiers_pick_best(self):
        tiers = ((5, 3), (20, 12), (10, 7))
        assert discount_percent(4, tiers=tiers) == 0
        assert discount_percent(5, tiers=tiers) == 3
        assert discount_percent(15, tiers=tiers) == 7
        assert discount_percent(25, tiers=tiers) == 12

    def test_lower_percent_at_higher_threshold_ignored(self):
        tiers = ((10, 8), (20, 4))
        assert discount_percent(30, tiers=tiers) == 8

    def test_negative(self):
        with pytest.raises(PricingError, match="quantity must not be negative"):
            discount_percent(-1)


class TestApplyDiscount:
    def test_basic(self):
        assert apply_discount(1000, 15) == 850

    def test_rounding_default_half_up(self):
        # 1010 * 5 / 100 = 50.5 -> 51 discount
        assert apply_discount(1010, 5) == 959

    def test_rounding_modes(self):
        assert apply_discount(1010, 5, rounding="down") == 960
        assert apply_discount(1030, 5, rounding="half_even") == 978
        assert apply_discount(1010, 5, rounding="half_even") == 960

    def test_percent_bounds(self):
        assert apply_discount(999, 0) == 999
        assert apply_discount(999, 100) == 0
        with pytest.raises(PricingError, match="between 0 and 100"):
            apply_discount(999, -1)
        with pytest.raises(PricingError, match="between 0 and 100"):
            apply_discount(999, 101)

    def test_amount_guard(self):
        assert apply_discount(0, 50) == 0
        with pytest.raises(PricingError, match="amount must not be negative"):
            apply_discount(-1, 10)


class TestTax:
    def test_default_rate(self):
        assert DEFAULT_TAX_RATE == 825
        assert tax(10000) == 825

    def test_default_rounding_half_up(self):
        # 200 * 825 / 10000 = 16.5 -> 17
        assert tax(200) == 17
        assert tax(200, rounding="half_even") == 16
        assert tax(199) == 16

    def test_explicit_rate(self):
        assert tax(12345, rate=600) == 741
        assert tax(12345, rate=600, rounding="down") == 740
        assert tax(12345, rate=0) == 0

    def test_guards(self):
        with pytest.raises(PricingError, match="amount must not be negative"):
            tax(-1)
        with pytest.raises(PricingError, match="tax rate must not be negative"):
            tax(100, rate=-1)


class TestMarkupPrice:
    def test_defaults(self):
        # 1000 * 1.25 = 1250, already a multiple of 5
        assert markup_price(1000) == 1250
        # 1001 * 1.25 = 1251.25 -> 1252 -> 1255
        assert markup_price(1001) == 1255

    def test_margin_and_step(self):
        assert markup_price(1000, margin=40, step=25) == 1400
        assert markup_price(1001, margin=40, step=25) == 1425
        assert markup_price(999, margin=0, step=1) == 999

    def test_rounds_up_fraction(self):
        # 333 * 1.1 = 366.3 -> 367
        assert markup_price(333, margin=10, step=1) == 367

    def test_step_boundary(self):
        assert markup_price(100, margin=0, step=1) == 100
        assert markup_price(101, margin=0, step=2) == 102
        assert markup_price(102, margin=0, step=2) == 102

    def test_guards(self):
        with pytest.raises(PricingError, match="unit cost"):
            markup_price(-1)
        with pytest.raises(PricingError, match="margin"):
            markup_price(100, margin=-1)
        with pytest.raises(PricingError, match="step must be at least 1"):
            markup_price(100, step=0)
        assert markup_price(0) == 0


class TestLineTotal:
    def test_no_discount(self):
        assert line_total(1000, 2) == {
            "subtotal": 2000,
            "discount": 0,
            "tax": 165,
            "total": 2165,
        }

    def test_with_default_tiers(self):
        # 10 units -> 5% : 12340 -> 617 off -> 11723 ; tax 825bp = 967.15 -> 967
        assert line_total(1234, 10) == {
            "subtotal": 12340,
            "discount": 617,
            "tax": 967,
            "total": 12690,
        }

    def test_custom_rate_tiers_rounding(self):
        result = line_total(333, 3, rate=500, tiers=((3, 10),), rounding="down")
        # 999 -> 99.9 -> 99 off -> 900 ; tax 45
        assert result == {"subtotal": 999, "discount": 99, "tax": 45, "total": 945}
        result = line_total(333, 3, rate=500, tiers=((3, 10),), rounding="up")
        # 100 off -> 899 ; tax 44.95 -> 45
        assert result == {"subtotal": 999, "discount": 100, "tax": 45, "total": 944}

    def test_rounding_passed_to_tax(self):
        # 1 unit of 200 -> tax 16.5
        assert line_total(200, 1)["tax"] == 17
        assert line_total(200, 1, rounding="half_even")["tax"] == 16

    def test_qty_guard(self):
        assert line_total(5, 1)["subtotal"] == 5
        with pytest.raises(PricingError, match="quantity must be at least 1"):
            line_total(5, 0)

    def test_price_guard(self):
        assert line_total(0, 1)["total"] == 0
        with pytest.raises(PricingError, match="unit price must not be negative"):
            line_total(-1, 1)


class TestSplitEvenly:
    def test_even(self):
        assert split_evenly(900, 3) == [300, 300, 300]

    def test_remainder_goes_first(self):
        assert split_evenly(1001, 3) == [334, 334, 333]
        assert split_evenly(1000, 3) == [334, 333, 333]

    def test_single_part(self):
        assert split_evenly(7, 1) == [7]

    def test_guards(self):
        with pytest.raises(PricingError, match="parts must be at least 1"):
            split_evenly(100, 0)
        with pytest.raises(PricingError, match="amount must not be negative"):
            split_evenly(-1, 2)
        assert split_evenly(0, 2) == [0, 0]
