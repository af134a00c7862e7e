from ledger.pricing import share_out


def test_split():
    assert share_out(7, 2) == [4, 3]
