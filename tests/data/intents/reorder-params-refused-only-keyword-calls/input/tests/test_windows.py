from windows import pairs, window


def test_window():
    assert window([1, 2, 3]) == [[1, 2], [2, 3]]
    assert pairs([1, 2, 3, 4]) == [[1, 2], [3, 4]]
