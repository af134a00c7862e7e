from pkg.rates import settle


def test_settle():
    assert settle(5) == 5
