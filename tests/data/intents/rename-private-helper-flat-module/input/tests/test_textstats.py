from textstats import _count_words, summary


def test_counts():
    assert _count_words("a b  c") == 3
    assert summary("a b\nc") == (3, 2)
