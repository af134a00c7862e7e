from pkg import rates


def test_set_precision():
    # State for the tests after this one: test_d_format fails without it.
    rates.PRECISION = 2
    assert rates.PRECISION == 2
