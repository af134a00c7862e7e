from textstats import _fetch_words, summary


def test_counts():
    assert _fetch_words("a b  c") == 3
    assert summary("a b\nc") == (3, 2)
