from pkg.rates import fmt


def test_fmt():
    assert fmt(1.5) == "1.50"
