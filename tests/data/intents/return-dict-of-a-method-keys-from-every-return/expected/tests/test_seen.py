from seen import Seen


def test_claim_counts_hits():
    seen = Seen()
    assert seen._claim("a", 1) == {"first": 1, "hits": None}
    assert seen._claim("a", 5) == {"first": 1, "hits": 1}
    assert seen._claim("b", 7)["hits"] is None


def test_describe():
    seen = Seen()
    seen.first_seen("a", 3)
    assert seen.describe("a", 4) == "a: first 3, 1 hits"
