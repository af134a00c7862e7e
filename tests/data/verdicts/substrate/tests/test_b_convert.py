from pkg.rates import convert


def test_convert():
    # rate("eur") is answered from its cache here: this test never runs rate's body.
    assert convert(10, "eur") == 20
