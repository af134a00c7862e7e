from spans import around, first_three, span


def test_span():
    assert span(1, 3) == [1, 2]
    assert around((0, 2)) == [0, 1]
    assert first_three() == [0, 1, 2]
