import pytest

from ratelimit import Limiter, Policy, report


def words(n):
    return " ".join(["w"] * n)


class TestMessageCost:
    @pytest.mark.parametrize("n,cost", [(0, 1), (19, 1), (20, 2), (39, 2), (40, 3), (99, 5), (100, 5),
                                        (500, 5)])
    def test_defaults(self, n, cost):
        assert report.message_cost(words(n)) == cost

    def test_default_unit(self):
        assert report.WORDS_PER_UNIT == 20

    def test_custom_unit_and_cap(self):
        assert report.message_cost(words(9), words_per_unit=10) == 1
        assert report.message_cost(words(10), words_per_unit=10) == 2
        assert report.message_cost(words(95), words_per_unit=10, max_cost=20) == 10
        assert report.message_cost(words(95), words_per_unit=10, max_cost=7) == 7

    def test_unit_guard(self):
        assert report.message_cost(words(3), words_per_unit=1) == 4
        with pytest.raises(ValueError, match="words_per_unit must be at least 1"):
            report.message_cost("x", words_per_unit=0)


def chat_limiter():
    lim = Limiter(Policy("chat", 3, per=10, burst=1))
    lim.add_rule("vip:", Policy("vip", 10, per=10))
    return lim


MESSAGES = [
    (0, "ann", words(5)),
    (0, "ann", words(12)),
    (1, "ann", words(1)),
    (2, "ann", words(25)),
    (2, "vip:bo", words(95)),
    (10, "ann", words(9)),
    (12, "ann", words(30)),
]


class TestThrottle:
    def test_default_unit_of_ten_words(self):
        assert report.throttle(MESSAGES, chat_limiter()) == [
            (0, "ann", 1, True, 0),
            (0, "ann", 2, True, 0),
            (1, "ann", 1, True, 0),
            (2, "ann", 3, False, 8),
            (2, "vip:bo", 10, True, 0),
            (10, "ann", 1, True, 0),
            (12, "ann", 4, False, 8),
        ]

    def test_custom_unit(self):
        assert report.throttle(MESSAGES, chat_limiter(), words_per_unit=20) == [
            (0, "ann", 1, True, 0),
            (0, "ann", 1, True, 0),
            (1, "ann", 1, True, 0),
            (2, "ann", 2, False, 8),
            (2, "vip:bo", 5, True, 0),
            (10, "ann", 1, True, 0),
            (12, "ann", 2, True, 0),
        ]

    def test_cost_capped_by_policy_capacity(self):
        result = report.throttle([(0, "ann", words(200))], chat_limiter())
        assert result == [(0, "ann", 4, True, 0)]

    def test_empty(self):
        assert report.throttle([], chat_limiter()) == []


class TestCompareStrategies:
    def test_bursty_traffic(self):
        times = [0, 1, 2, 3, 9, 10, 11, 12, 19, 20]
        assert report.compare_strategies(times, 3, 10) == {
            "bucket": 7, "counter": 5, "fixed": 7, "log": 7,
        }

    def test_steady_traffic(self):
        times = [5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
        assert report.compare_strategies(times, 4, 10) == {
            "bucket": 5, "counter": 6, "fixed": 8, "log": 5,
        }

    def test_cost(self):
        times = [0, 3, 6, 9, 12, 15, 18]
        assert report.compare_strategies(times, 4, 10, cost=2) == {
            "bucket": 4, "counter": 3, "fixed": 4, "log": 4,
        }

    def test_empty_and_single(self):
        assert report.compare_strategies([], 3, 10) == {"bucket": 0, "counter": 0, "fixed": 0, "log": 0}
        assert report.compare_strategies([7], 1, 5) == {"bucket": 1, "counter": 1, "fixed": 1, "log": 1}


TEXT = ("Rate limits protect shared services. Limits should be fair; clients retry later. "
        "Services recover!")


class TestTextSummary:
    def test_summary(self):
        assert report.text_summary(TEXT) == {
            "words": 14,
            "sentences": 4,
            "top": [("limits", 2), ("services", 2)],
            "readability_x10": 450,
            "avg_length_x10": 57,
            "label": "difficult",
        }

    def test_short_words_excluded_from_top(self):
        summary = report.text_summary("It is it. It is big big big.")
        assert summary["top"] == []
        assert summary["label"] == "very easy"
        assert summary["sentences"] == 2

    def test_top_limited_to_two(self):
        summary = report.text_summary("alpha beta gamma alpha.")
        assert summary["top"] == [("alpha", 2), ("beta", 1)]

    def test_label_uses_unscaled_score(self):
        summary = report.text_summary("The cat sat on the mat.")
        assert summary["readability_x10"] == 1161
        assert summary["label"] == "very easy"
        assert summary["avg_length_x10"] == 28


class TestFormatting:
    @pytest.mark.parametrize(
        "value,text",
        [(123, "12.3"), (5, "0.5"), (0, "0.0"), (10, "1.0"), (-7, "-0.7"), (-123, "-12.3")],
    )
    def test_format_tenths(self, value, text):
        assert report.format_tenths(value) == text

    def test_format_summary(self):
        assert report.format_summary(report.text_summary(TEXT)) == (
            "words: 14, sentences: 4\n"
            "readability: 45.0 (difficult)\n"
            "average word length: 5.7\n"
            "top: limits(2), services(2)"
        )

    def test_format_summary_no_top(self):
        summary = {"words": 1, "sentences": 1, "top": [], "readability_x10": -15,
                   "avg_length_x10": 30, "label": "very difficult"}
        assert report.format_summary(summary) == (
            "words: 1, sentences: 1\n"
            "readability: -1.5 (very difficult)\n"
            "average word length: 3.0\n"
            "top: -"
        )
