import pytest

from ledger import Item, ItemError, Ledger, StockError


@pytest.fixture
def ledger():
    led = Ledger()
    led.register(Item("HW-100", "Hammer", 1000, reorder_level=3, reorder_qty=6))
    led.register(Item("SW-200", "Editor", 5000))
    return led


class TestRegistry:
    def test_register_returns_item(self):
        led = Ledger()
        item = Item("AC-1X", "Cable", 300)
        assert led.register(item) is item
        assert led.item("ac-1x") is item

    def test_register_rejects_non_item(self, ledger):
        with pytest.raises(TypeError, match="only Item instances"):
            ledger.register("HW-300")

    def test_duplicate(self, ledger):
        with pytest.raises(StockError, match="duplicate sku HW-100"):
            ledger.register(Item("hw-100", "Other", 1))

    def test_unknown(self, ledger):
        with pytest.raises(StockError, match="unknown sku XX-99"):
            ledger.item("xx-99")

    def test_invalid_sku_lookup(self, ledger):
        with pytest.raises(ItemError):
            ledger.item("x")

    def test_skus_sorted(self, ledger):
        ledger.register(Item("AC-9", "Adapter", 100))
        assert ledger.skus() == ["AC-9", "HW-100", "SW-200"]

    def test_new_item_is_empty(self, ledger):
        assert ledger.on_hand("HW-100") == 0
        assert ledger.reserved("HW-100") == 0
        assert ledger.available("HW-100") == 0
        assert ledger.lots("HW-100") == []

    def test_max_lots_guard(self):
        assert Ledger().max_lots == 50
        assert Ledger(max_lots=1).max_lots == 1
        with pytest.raises(StockError, match="max_lots must be at least 1"):
            Ledger(max_lots=0)


class TestReceive:
    def test_receive_default_cost(self, ledger):
        assert ledger.receive("hw-100", 5) == 5
        assert ledger.lots("HW-100") == [(5, 1000)]

    def test_receive_explicit_cost(self, ledger):
        ledger.receive("HW-100", 5)
        assert ledger.receive("HW-100", 3, unit_cost=1100) == 8
        assert ledger.lots("HW-100") == [(5, 1000), (3, 1100)]

    def test_same_cost_merges_with_last_lot(self, ledger):
        ledger.receive("HW-100", 5)
        ledger.receive("HW-100", 2, unit_cost=1000)
        assert ledger.lots("HW-100") == [(7, 1000)]

    def test_only_last_lot_merges(self, ledger):
        ledger.receive("HW-100", 1, unit_cost=10)
        ledger.receive("HW-100", 1, unit_cost=20)
        ledger.receive("HW-100", 1, unit_cost=10)
        assert ledger.lots("HW-100") == [(1, 10), (1, 20), (1, 10)]

    def test_quantity_guard(self, ledger):
        assert ledger.receive("HW-100", 1) == 1
        with pytest.raises(StockError, match="receive quantity must be positive"):
            ledger.receive("HW-100", 0)

    def test_cost_guard(self, ledger):
        assert ledger.receive("HW-100", 1, unit_cost=0) == 1
        with pytest.raises(StockError, match="unit cost must not be negative"):
            ledger.receive("HW-100", 1, unit_cost=-1)

    def test_lot_limit(self):
        led = Ledger(max_lots=2)
        led.register(Item("HW-1A", "Nail", 1))
        led.receive("HW-1A", 1, unit_cost=1)
        led.receive("HW-1A", 1, unit_cost=2)
        led.receive("HW-1A", 1, unit_cost=2)
        with pytest.raises(StockError, match="too many cost lots"):
            led.receive("HW-1A", 1, unit_cost=3)
        assert led.lots("HW-1A") == [(1, 1), (2, 2)]

    def test_history(self, ledger):
        ledger.receive("HW-100", 4)
        assert ledger.history() == [("receive", "HW-100", 4)]


class TestShip:
    def test_fifo_cost(self, ledger):
        ledger.receive("HW-100", 3, unit_cost=100)
        ledger.receive("HW-100", 4, unit_cost=200)
        assert ledger.ship("HW-100", 5) == 3 * 100 + 2 * 200
        assert ledger.lots("HW-100") == [(2, 200)]
        assert ledger.on_hand("HW-100") == 2

    def test_ship_exact_lot(self, ledger):
        ledger.receive("HW-100", 3, unit_cost=100)
        ledger.receive("HW-100", 4, unit_cost=200)
        assert ledger.ship("HW-100", 3) == 300
        assert ledger.lots("HW-100") == [(4, 200)]

    def test_ship_within_lot(self, ledger):
        ledger.receive("HW-100", 3, unit_cost=100)
        assert ledger.ship("HW-100", 1) == 100
        assert ledger.lots("HW-100") == [(2, 100)]

    def test_ship_all(self, ledger):
        ledger.receive("HW-100", 3, unit_cost=100)
        ledger.receive("HW-100", 4, unit_cost=200)
        assert ledger.ship("HW-100", 7) == 1100
        assert ledger.lots("HW-100") == []

    def test_quantity_guard(self, ledger):
        ledger.receive("HW-100", 3)
        with pytest.raises(StockError, match="ship quantity must be positive"):
            ledger.ship("HW-100", 0)

    def test_available_boundary(self, ledger):
        ledger.receive("HW-100", 5)
        ledger.reserve("HW-100", 2)
        with pytest.raises(StockError, match="insufficient available stock"):
            ledger.ship("HW-100", 4)
        assert ledger.ship("HW-100", 3) == 3000
        assert ledger.available("HW-100") == 0
        assert ledger.reserved("HW-100") == 2

    def test_from_reserved(self, ledger):
        ledger.receive("HW-100", 5)
        ledger.reserve("HW-100", 3)
        with pytest.raises(StockError, match="cannot ship more than reserved"):
            ledger.ship("HW-100", 4, from_reserved=True)
        assert ledger.ship("HW-100", 3, from_reserved=True) == 3000
        assert ledger.reserved("HW-100") == 0
        assert ledger.on_hand("HW-100") == 2
        assert ledger.available("HW-100") == 2

    def test_from_reserved_ignores_available(self, ledger):
        ledger.receive("HW-100", 4)
        ledger.reserve("HW-100", 4)
        assert ledger.ship("HW-100", 1, from_reserved=True) == 1000
        assert ledger.reserved("HW-100") == 3

    def test_history(self, ledger):
        ledger.receive("HW-100", 5)
        ledger.ship("HW-100", 2)
        assert ledger.history(kind="ship") == [("ship", "HW-100", 2)]


class TestReservations:
    def test_reserve_and_release(self, ledger):
        ledger.receive("HW-100", 5)
        assert ledger.reserve("HW-100", 2) == 2
        assert ledger.reserve("HW-100", 3) == 5
        assert ledger.available("HW-100") == 0
        assert ledger.on_hand("HW-100") == 5
        assert ledger.release("HW-100", 4) == 1
        assert ledger.available("HW-100") == 4

    def test_reserve_guards(self, ledger):
        ledger.receive("HW-100", 5)
        with pytest.raises(StockError, match="reserve quantity must be positive"):
            ledger.reserve("HW-100", 0)
        with pytest.raises(StockError, match="cannot reserve more than available"):
            ledger.reserve("HW-100", 6)
        assert ledger.reserve("HW-100", 5) == 5

    def test_release_guards(self, ledger):
        ledger.receive("HW-100", 5)
        ledger.reserve("HW-100", 2)
        with pytest.raises(StockError, match="release quantity must be positive"):
            ledger.release("HW-100", 0)
        with pytest.raises(StockError, match="cannot release more than reserved"):
            ledger.release("HW-100", 3)
        assert ledger.release("HW-100", 2) == 0

    def test_history(self, ledger):
        ledger.receive("HW-100", 5)
        ledger.reserve("HW-100", 2)
        ledger.release("HW-100", 1)
        assert ledger.history(kind="reserve") == [("reserve", "HW-100", 2)]
        assert ledger.history(kind="release") == [("release", "HW-100", 1)]


class TestAdjust:
    def test_positive_adds_lot_at_standard_cost(self, ledger):
        ledger.receive("HW-100", 2, unit_cost=700)
        assert ledger.adjust("HW-100", 3, "found in back room") == 5
        assert ledger.lots("HW-100") == [(2, 700), (3, 1000)]

    def test_single_unit_adjustments(self, ledger):
        assert ledger.adjust("HW-100", 1, "found") == 1
        assert ledger.adjust("HW-100", -1, "lost") == 0
        assert ledger.lots("HW-100") == []

    def test_negative_consumes_fifo(self, ledger):
        ledger.receive("HW-100", 2, unit_cost=700)
        ledger.receive("HW-100", 3, unit_cost=800)
        assert ledger.adjust("HW-100", -3, "damaged") == 2
        assert ledger.lots("HW-100") == [(2, 800)]

    def test_cannot_remove_reserved(self, ledger):
        ledger.receive("HW-100", 5)
        ledger.reserve("HW-100", 2)
        with pytest.raises(StockError, match="would remove reserved stock"):
            ledger.adjust("HW-100", -4, "lost")
        assert ledger.adjust("HW-100", -3, "lost") == 2

    def test_zero(self, ledger):
        with pytest.raises(StockError, match="must not be zero"):
            ledger.adjust("HW-100", 0, "none")

    @pytest.mark.parametrize("reason", [None, "", "   "])
    def test_reason_required(self, ledger, reason):
        with pytest.raises(StockError, match="needs a reason"):
            ledger.adjust("HW-100", 1, reason)

    def test_history(self, ledger):
        ledger.receive("HW-100", 5)
        ledger.adjust("HW-100", -1, "count")
        ledger.adjust("HW-100", 2, "count")
        assert ledger.history(kind="adjust") == [
            ("adjust", "HW-100", -1),
            ("adjust", "HW-100", 2),
        ]


class TestValuation:
    def test_valuation(self, ledger):
        assert ledger.valuation("HW-100") == 0
        ledger.receive("HW-100", 3, unit_cost=100)
        ledger.receive("HW-100", 4, unit_cost=250)
        assert ledger.valuation("HW-100") == 1300

    def test_average_cost_empty_uses_standard(self, ledger):
        assert ledger.average_cost("HW-100") == 1000

    def test_average_cost_rounding(self, ledger):
        ledger.receive("HW-100", 2, unit_cost=100)
        ledger.receive("HW-100", 1, unit_cost=101)
        # 301 / 3 = 100.33
        assert ledger.average_cost("HW-100") == 100
        assert ledger.average_cost("HW-100", rounding="up") == 101
        ledger.receive("HW-100", 1, unit_cost=101)
        # 402 / 4 = 100.5
        assert ledger.average_cost("HW-100") == 101
        assert ledger.average_cost("HW-100", rounding="half_even") == 100

    def test_lots_returns_copy(self, ledger):
        ledger.receive("HW-100", 3)
        lots = ledger.lots("HW-100")
        lots.clear()
        assert ledger.on_hand("HW-100") == 3


class TestHistoryFilter:
    def test_filter_by_sku_and_kind(self, ledger):
        ledger.receive("HW-100", 5)
        ledger.receive("SW-200", 2)
        ledger.ship("HW-100", 1)
        ledger.ship("SW-200", 1)
        assert ledger.history(sku="sw-200") == [
            ("receive", "SW-200", 2),
            ("ship", "SW-200", 1),
        ]
        assert ledger.history(sku="HW-100", kind="ship") == [("ship", "HW-100", 1)]
        assert len(ledger.history()) == 4
        assert ledger.history(kind="ship") == [("ship", "HW-100", 1), ("ship", "SW-200", 1)]
