from money import cents, euros


def test_cents():
    assert cents(1.25) == 125


def test_euros():
    assert euros(250) == 2.5
