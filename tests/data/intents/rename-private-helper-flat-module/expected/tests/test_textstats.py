from textstats import _tally_words, summary


def test_counts():
    assert _tally_words("a b  c") == 3
    assert summary("a b\nc") == (3, 2)
