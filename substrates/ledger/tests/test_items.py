import pytest

from ledger import Item, ItemError, check_digit, normalize_sku, sku_category
from ledger.items import SKU_MAX_LENGTH, SKU_MIN_LENGTH


class TestNormalizeSku:
    def test_strips_and_uppercases(self):
        assert normalize_sku("  hw-100 ") == "HW-100"

    def test_rejects_non_string(self):
        with pytest.raises(ItemError, match="must be a string"):
            normalize_sku(1234)

    def test_limits(self):
        assert SKU_MIN_LENGTH == 4
        assert SKU_MAX_LENGTH == 12

    def test_length_boundaries(self):
        with pytest.raises(ItemError, match="too short"):
            normalize_sku("abc")
        assert normalize_sku("abcd") == "ABCD"
        assert normalize_sku("a" * 12) == "A" * 12
        with pytest.raises(ItemError, match="too long"):
            normalize_sku("a" * 13)

    def test_length_measured_after_strip(self):
        with pytest.raises(ItemError, match="too short"):
            normalize_sku("  ab  ")

    @pytest.mark.parametrize("raw", ["AB_12", "AB 12", "AB.12", "ÄB12!"])
    def test_invalid_characters(self, raw):
        with pytest.raises(ItemError, match="invalid character"):
            normalize_sku(raw)

    def test_consecutive_dashes(self):
        with pytest.raises(ItemError, match="consecutive dashes"):
            normalize_sku("AB--12")
        assert normalize_sku("A-B-12") == "A-B-12"

    def test_leading_dash(self):
        with pytest.raises(ItemError, match="start or end"):
            normalize_sku("-AB12")

    def test_trailing_dash(self):
        with pytest.raises(ItemError, match="start or end"):
            normalize_sku("AB12-")


class TestCategory:
    @pytest.mark.parametrize(
        "sku,expected",
        [("HW-1", "hardware"), ("SW12", "software"), ("AC-99", "accessory"),
         ("XX-1", "general"), ("H-W1", "general")],
    )
    def test_prefixes(self, sku, expected):
        assert sku_category(sku) == expected


class TestCheckDigit:
    def test_digits_only(self):
        # 1*1 + 2*2 + 3*3 + 4*4 = 30 -> 30 % 11 = 8
        assert check_digit("1234") == "8"

    def test_letters_count_from_ten(self):
        # A=10*1 + B=11*2 + C=12*3 + D=13*4 = 120 -> 120 % 11 = 10 -> X
        assert check_digit("ABCD") == "X"

    def test_dashes_do_not_advance_position(self):
        assert check_digit("12-34") == check_digit("1234")

    def test_zero_remainder(self):
        # 2*1 + 0*2 + 0*3 + 3*4 = 14 -> 3 ; 9*1+1*2+0+0 = 11 -> 0
        assert check_digit("2003") == "3"
        assert check_digit("9100") == "0"

    def test_normalizes_input(self):
        assert check_digit(" abcd ") == "X"
        with pytest.raises(ItemError):
            check_digit("ab")


class TestItem:
    def make(self, **kw):
        args = dict(sku="hw-100", name=" Hammer ", unit_cost=1250)
        args.update(kw)
        return Item(**args)

    def test_fields(self):
        item = self.make()
        assert item.sku == "HW-100"
        assert item.name == "Hammer"
        assert item.unit_cost == 1250
        assert item.reorder_level == 5
        assert item.reorder_qty == 10
        assert item.category == "hardware"

    def test_empty_name(self):
        with pytest.raises(ItemError, match="name must not be empty"):
            self.make(name="   ")

    def test_unit_cost_boundary(self):
        assert self.make(unit_cost=0).unit_cost == 0
        with pytest.raises(ItemError, match="unit cost"):
            self.make(unit_cost=-1)

    def test_reorder_level_boundary(self):
        assert self.make(reorder_level=0).reorder_level == 0
        with pytest.raises(ItemError, match="reorder level"):
            self.make(reorder_level=-1)

    def test_reorder_qty_boundary(self):
        assert self.make(reorder_qty=1).reorder_qty == 1
        with pytest.raises(ItemError, match="reorder quantity"):
            self.make(reorder_qty=0)

    def test_label_default_pads(self):
        label = self.make().label()
        assert label == "HW-100 Hammer" + "." * 11
        assert len(label) == 24

    def test_label_custom_fill(self):
        assert self.make().label(width=16, fill="_") == "HW-100 Hammer___"

    def test_label_exact_fit(self):
        assert self.make().label(width=13) == "HW-100 Hammer"

    def test_label_truncates(self):
        assert self.make().label(width=12) == "HW-100 Hamm~"
        assert self.make().label(width=10) == "HW-100 Ha~"

    def test_label_min_width(self):
        assert self.make().label(width=8) == "HW-100 ~"
        with pytest.raises(ItemError, match="label width too small"):
            self.make().label(width=7)

    def test_needs_reorder_boundary(self):
        item = self.make(reorder_level=5)
        assert item.needs_reorder(4)
        assert item.needs_reorder(5)
        assert not item.needs_reorder(6)

    def test_equality_and_hash(self):
        a = self.make()
        b = self.make(sku="HW-100", name="Other", unit_cost=1)
        c = self.make(sku="HW-101")
        assert a == b
        assert not (a == c)
        assert a != c
        assert hash(a) == hash(b)
        assert len({a, b, c}) == 2
        assert (a == "HW-100") is False
        assert a.__eq__("HW-100") is NotImplemented

    def test_repr(self):
        assert repr(self.make()) == "Item('HW-100', 'Hammer', 1250)"
