from shipping import rate


def test_heavier_costs_more():
    assert rate(3) > rate(1)
