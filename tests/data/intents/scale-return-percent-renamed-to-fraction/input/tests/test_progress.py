from progress import completion_percent, summary


def test_a_quarter():
    assert completion_percent(1, 4) == 25


def test_summary():
    assert summary(3, 4) == "75% done"
