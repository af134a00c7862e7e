from lines import split_lines


def test_split_lines():
    assert split_lines("a\nb\n") == ["a", "b"]
