from fmt import cents, money, whole


def test_money():
    assert money(1.5) == "$1.50"
    assert cents(150, 1, "€") == "€1.5"
    assert whole(3) == "$3"
