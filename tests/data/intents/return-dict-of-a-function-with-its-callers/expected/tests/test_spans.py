import unittest

import pytest

from spans import span_of, width


def test_span_of_a_word():
    assert span_of("a cat sat", "cat") == {"start": 2, "end": 5}


def test_span_of_the_last_word():
    span = span_of("a cat sat", "sat")
    assert span["end"] == 9
    start, end = span["start"], span["end"]
    assert (start, end) != (0, 1)


def test_missing_word():
    with pytest.raises(ValueError):
        span_of("a cat", "dog")


def test_width():
    assert width("a cat", "cat") == 3


class SpanTest(unittest.TestCase):
    def test_first_word(self):
        self.assertEqual(span_of("cat sat", "cat"), {"start": 0, "end": 3})
