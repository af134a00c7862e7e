from ledger.pricing import split_evenly


def test_split():
    assert split_evenly(7, 2) == [4, 3]
