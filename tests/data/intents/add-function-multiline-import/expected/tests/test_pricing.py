from pricing import (
    TAX_RATE,
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
