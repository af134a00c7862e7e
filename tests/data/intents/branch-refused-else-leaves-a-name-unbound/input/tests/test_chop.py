from chop import chop


def test_chop():
    assert chop("abcd", 2) == ["ab", "cd"]


def test_chop_whole():
    assert chop("abc", 0) == ["abc"]
