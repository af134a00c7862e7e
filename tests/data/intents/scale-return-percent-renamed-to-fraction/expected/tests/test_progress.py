from progress import completion_fraction, summary


def test_a_quarter():
    assert completion_fraction(1, 4) == 0.25


def test_summary():
    assert summary(3, 4) == "75% done"
