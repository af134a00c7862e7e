from ranges import clamp_span, window


def test_clamp_span():
    assert clamp_span(-2, 30, 10) == (0, 10)


def test_window():
    assert window("abcdef", 1, 3) == "bc"
