from fmt import cell, pad


def test_pad():
    assert pad("ab") == "ab      "
    assert cell("ab", width=3) == "ab "
