from textstats import _get_words, summary


def test_counts():
    assert _get_words("a b  c") == 3
    assert summary("a b\nc") == (3, 2)
