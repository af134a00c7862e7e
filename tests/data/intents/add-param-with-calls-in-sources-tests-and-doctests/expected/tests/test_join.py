from text.join import headline, join_words, listing, table


def test_join_words():
    assert join_words(["a", "b"], sep=", ") == "a, b"
    assert join_words(["a", "b"], " ") == "a b"
    assert join_words(sep="/", words=["a", "b"]) == "a/b"


def test_callers():
    assert headline(["x", "y", "z", "w"]) == "X, Y, Z"
    assert listing(["p", "q"]) == "p, q"
    assert table([["a", "b"], ["c"]]) == "a, b\nc"
