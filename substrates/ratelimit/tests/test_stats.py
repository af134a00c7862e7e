import pytest

from ratelimit import stats


class TestSplitWords:
    def test_basic(self):
        assert stats.split_words("Don't stop-believing, it's 2024!") == [
            "Don't", "stop", "believing", "it's", "2024",
        ]

    def test_apostrophes_at_edges(self):
        assert stats.split_words("'quoted' dogs' rock'n'roll") == ["quoted", "dogs", "rock'n'roll"]

    def test_trailing_word_kept(self):
        assert stats.split_words("one two") == ["one", "two"]
        assert stats.split_words("end'") == ["end"]

    def test_empty_and_punctuation(self):
        assert stats.split_words("") == []
        assert stats.split_words(" ,.;'! ") == []


class TestSyllables:
    @pytest.mark.parametrize(
        "word,count",
        [
            ("cat", 1), ("table", 2), ("make", 1), ("MAKE", 1), ("the", 1), ("queue", 1),
            ("rhythm", 1), ("psst", 1), ("beautiful", 3), ("Apple", 2), ("coded", 2),
            ("banana", 3), ("eye", 1), ("a", 1), ("idea", 2), ("adventure", 3), ("hope", 1),
            ("e", 1), ("battle", 2),
        ],
    )
    def test_counts(self, word, count):
        assert stats.count_syllables(word) == count


class TestSentences:
    def test_terminators(self):
        assert stats.split_sentences("Hello there. How are you?! Fine") == [
            "Hello there.", "How are you?", "Fine",
        ]

    def test_leading_dots_and_empty(self):
        assert stats.split_sentences("...wait") == ["wait"]
        assert stats.split_sentences("") == []
        assert stats.split_sentences("  !?  ") == []

    def test_custom_terminators(self):
        assert stats.split_sentences("a; b. c", terminators=";") == ["a;", "b. c"]
        assert stats.split_sentences("a; b. c") == ["a; b.", "c"]

    def test_strips_whitespace(self):
        assert stats.split_sentences("  One.   Two!  ") == ["One.", "Two!"]


class TestWordCounts:
    def test_ignore_case(self):
        assert stats.word_counts("The cat and the hat") == {"the": 2, "cat": 1, "and": 1, "hat": 1}
        assert stats.word_counts("A cat, a hat") == {"a": 2, "cat": 1, "hat": 1}

    def test_case_sensitive(self):
        assert stats.word_counts("The cat the", ignore_case=False) == {"The": 1, "cat": 1, "the": 1}

    def test_min_length(self):
        assert stats.word_counts("a bb ccc bb", min_length=2) == {"bb": 2, "ccc": 1}
        assert stats.word_counts("a bb ccc", min_length=3) == {"ccc": 1}
        with pytest.raises(ValueError, match="min_length must be at least 1"):
            stats.word_counts("x", min_length=0)


class TestTopWords:
    def test_ranking_and_ties(self):
        assert stats.top_words("b a b c a b d") == [("b", 3), ("a", 2), ("c", 1)]
        assert stats.top_words("b a b c a b d", n=2) == [("b", 3), ("a", 2)]

    def test_ties_alphabetical_not_insertion(self):
        assert stats.top_words("b a b a") == [("a", 2), ("b", 2)]
        assert stats.top_words("zeta yak yak zeta xi", n=3) == [("yak", 2), ("zeta", 2), ("xi", 1)]

    def test_min_length(self):
        assert stats.top_words("a a a bb bb ccc", n=5, min_length=2) == [("bb", 2), ("ccc", 1)]

    def test_n_guard(self):
        assert stats.top_words("x y", n=1) == [("x", 1)]
        with pytest.raises(ValueError, match="n must be at least 1"):
            stats.top_words("x", n=0)


class TestReadability:
    @pytest.mark.parametrize(
        "text,score,x10,x100",
        [
            ("The cat sat on the mat.", 116, 1161, 11615),
            ("Hello there. How are you?! Fine", 106, 1061, 10611),
            ("Go.", 121, 1212, 12122),
            ("Photosynthesis requires considerable illumination. Unquestionably!",
             -185, -1849, -18486),
        ],
    )
    def test_scores(self, text, score, x10, x100):
        assert stats.readability(text) == score
        assert stats.readability(text, scale=10) == x10
        assert stats.readability(text, scale=100) == x100

    def test_fine_scale(self):
        assert stats.readability("The cat sat on the mat.", scale=1000) == 116145
        assert stats.readability("Go.", scale=1000) == 121220

    def test_no_words(self):
        with pytest.raises(ValueError, match="text has no words"):
            stats.readability("?!")

    def test_scale_guard(self):
        with pytest.raises(ValueError, match="scale must be at least 1"):
            stats.readability("Go.", scale=0)


class TestLabels:
    @pytest.mark.parametrize(
        "score,label",
        [
            (120, "very easy"), (90, "very easy"), (89, "easy"), (70, "easy"),
            (69, "standard"), (50, "standard"), (49, "difficult"), (30, "difficult"),
            (29, "very difficult"), (-5, "very difficult"),
        ],
    )
    def test_boundaries(self, score, label):
        assert stats.grade_label(score) == label


class TestAverageWordLength:
    def test_default_scale(self):
        assert stats.average_word_length("ab abc") == 2
        assert stats.average_word_length("abc abcd") == 3

    def test_scale(self):
        assert stats.average_word_length("ab abc", scale=10) == 25
        assert stats.average_word_length("a bb bb", scale=100) == 166

    def test_apostrophes_not_counted(self):
        assert stats.average_word_length("don't go", scale=10) == 30

    def test_empty(self):
        assert stats.average_word_length("...") == 0
        assert stats.average_word_length("", scale=10) == 0
