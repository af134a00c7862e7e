from feeds import Feed


def test_summary_lists_the_newest_first():
    feed = Feed([{"date": 1, "title": "a"}, {"date": 2, "title": "b", "draft": True}])
    assert feed.summary(2) == "2 entries: [draft] b | a"
