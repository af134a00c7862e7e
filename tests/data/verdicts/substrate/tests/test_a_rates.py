from pkg.rates import rate


def test_rates_are_known():
    # The first call of each rate: the only test whose trace reaches rate's body.
    assert rate("usd") == 3
    assert rate("eur") > 0
