from pricing import (
    TAX_RATE,
    split_evenly,
    tax,
    with_tax,
)


class TestTax:
    def test_rate(self):
        assert TAX_RATE == 825

    def test_tax(self):
        assert tax(10000) == 825

    def test_with_tax(self):
        assert with_tax(10000) == 10825


class TestSplitEvenly:
    def test_even(self):
        assert split_evenly(9, 3) == [3, 3, 3]

    def test_remainder(self):
        assert split_evenly(10, 3) == [4, 3, 3]
