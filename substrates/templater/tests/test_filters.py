import pytest

from templater import FILTERS, Markup
from templater import filters


class TestEscape:
    def test_default_keeps_quotes(self):
        assert filters.escape("<a href=\"x\">'&'</a>") == "&lt;a href=\"x\"&gt;'&amp;'&lt;/a&gt;"

    def test_quote(self):
        assert filters.escape("\"it's\"", quote=True) == "&quot;it&#39;s&quot;"

    def test_returns_markup(self):
        assert isinstance(filters.escape("x"), Markup)

    def test_markup_untouched(self):
        value = Markup("<b>")
        assert filters.escape(value, quote=True) is value

    def test_non_string(self):
        assert filters.escape(5) == "5"

    def test_safe(self):
        result = filters.safe(12)
        assert result == "12"
        assert isinstance(result, Markup)


class TestCase:
    def test_upper_lower(self):
        assert filters.upper("MiXed 1") == "MIXED 1"
        assert filters.lower("MiXed 1") == "mixed 1"
        assert filters.upper(3) == "3"


class TestTruncate:
    def test_default_width(self):
        assert filters.truncate("a" * 20) == "a" * 20
        assert filters.truncate("a" * 21) == "a" * 17 + "..."

    def test_custom(self):
        assert filters.truncate("hello world", width=8, ellipsis="~") == "hello w~"
        assert filters.truncate("hello world", width=7) == "hell..."

    def test_strips_space_before_ellipsis(self):
        assert filters.truncate("hello world", width=9) == "hello..."

    def test_exact_width(self):
        assert filters.truncate("abcdef", width=6) == "abcdef"
        assert filters.truncate("abcdef", width=5) == "ab..."

    def test_width_not_above_ellipsis(self):
        assert filters.truncate("abcdef", width=3) == "abc"
        assert filters.truncate("abcdef", width=4) == "a..."
        assert filters.truncate("abcdef", width=0) == ""

    def test_negative_width(self):
        with pytest.raises(ValueError, match="width must not be negative"):
            filters.truncate("abc", width=-1)

    def test_non_string(self):
        assert filters.truncate(123456, width=5, ellipsis="") == "12345"


class TestPad:
    def test_default(self):
        assert filters.pad("abc") == "abc       "

    def test_right_and_fill(self):
        assert filters.pad(42, width=5, align="right", fill="0") == "00042"

    def test_center(self):
        assert filters.pad("ab", width=7, align="center", fill="*") == "**ab***"
        assert filters.pad("ab", width=6, align="center") == "  ab  "

    def test_no_padding_needed(self):
        assert filters.pad("abcd", width=4, align="bogus") == "abcd"
        assert filters.pad("abcde", width=4) == "abcde"
        assert filters.pad("abc", width=4) == "abc "

    def test_bad_fill(self):
        with pytest.raises(ValueError, match="fill must be a single character"):
            filters.pad("a", fill="")
        with pytest.raises(ValueError, match="fill must be a single character"):
            filters.pad("a", fill="ab")

    def test_bad_align(self):
        with pytest.raises(ValueError, match="unknown alignment 'middle'"):
            filters.pad("a", width=3, align="middle")


class TestJoin:
    def test_default_separator(self):
        assert filters.join([1, 2, 3]) == "123"

    def test_separator(self):
        assert filters.join(["a", "b"], sep=" / ") == "a / b"
        assert filters.join((), sep=",") == ""

    def test_string_unchanged(self):
        assert filters.join("abc", sep="-") == "abc"


class TestDefault:
    def test_none(self):
        assert filters.default(None) == ""
        assert filters.default(None, "x") == "x"

    def test_keeps_falsy_without_boolean(self):
        assert filters.default(0, "x") == 0
        assert filters.default("", "x") == ""

    def test_boolean(self):
        assert filters.default("", "x", boolean=True) == "x"
        assert filters.default(0, "x", boolean=True) == "x"
        assert filters.default("y", "x", boolean=True) == "y"


class TestMisc:
    def test_length(self):
        assert filters.length([1, 2]) == 2
        assert filters.length("abc") == 3

    @pytest.mark.parametrize("count,expected", [(0, "s"), (1, ""), (2, "s"), (-1, "s")])
    def test_plural_default(self, count, expected):
        assert filters.plural(count) == expected

    def test_plural_custom(self):
        assert filters.plural(1, "y", "ies") == "y"
        assert filters.plural(3, singular="y", suffix="ies") == "ies"

    @pytest.mark.parametrize(
        "value,expected",
        [(0, "0"), (999, "999"), (1000, "1,000"), (-1000, "-1,000"), (123456, "123,456"),
         (1234567, "1,234,567"), (-999, "-999")],
    )
    def test_number(self, value, expected):
        assert filters.number(value) == expected

    def test_number_separator(self):
        assert filters.number(1234567, sep=".") == "1.234.567"

    @pytest.mark.parametrize("value", ["12", 1.5, True])
    def test_number_type(self, value):
        with pytest.raises(TypeError, match="needs an integer"):
            filters.number(value)

    def test_registry(self):
        assert sorted(FILTERS) == [
            "default", "e", "escape", "join", "length", "lower", "number",
            "pad", "plural", "safe", "truncate", "upper",
        ]
        assert FILTERS["e"] is filters.escape
        assert FILTERS["escape"] is filters.escape
        for name, func in FILTERS.items():
            if name != "e":
                assert func is getattr(filters, name)
