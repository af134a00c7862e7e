from decimal import Decimal

import pytest

import utils
from utils import (
    chunk, clamp, format_money, format_number, pad, parse_pairs, percent,
    round_half_up, safe_divide, slugify, truncate,
)


# --- round_half_up ----------------------------------------------------------

def test_round_half_up_values():
    assert round_half_up(2.675) == Decimal("2.68")
    assert round_half_up(2.665) == Decimal("2.67")
    assert round_half_up(-2.5, precision=0) == Decimal("-3")
    assert round_half_up(1.25, precision=1) == Decimal("1.3")
    assert round_half_up(Decimal("0.125")) == Decimal("0.13")
    assert str(round_half_up(7)) == "7.00"
    assert str(round_half_up(7, precision=0)) == "7"


def test_round_half_up_errors():
    with pytest.raises(TypeError, match="value must be a number"):
        round_half_up("1")
    with pytest.raises(TypeError, match="value must be a number"):
        round_half_up(True)
    with pytest.raises(ValueError, match="precision must not be negative"):
        round_half_up(1.0, precision=-1)


# --- format_number ----------------------------------------------------------

@pytest.mark.parametrize("value,expected", [
    (0, "0.00"),
    (5, "5.00"),
    (12.5, "12.50"),
    (123, "123.00"),
    (999.994, "999.99"),
    (999.995, "1,000.00"),
    (1000, "1,000.00"),
    (1234.5, "1,234.50"),
    (12345.678, "12,345.68"),
    (123456, "123,456.00"),
    (1234567.891, "1,234,567.89"),
    (-1234.5, "-1,234.50"),
    (-0.001, "0.00"),
    (-0.005, "-0.01"),
])
def test_format_number_defaults(value, expected):
    assert format_number(value) == expected


def test_format_number_options():
    assert format_number(1234.5678, precision=0) == "1,235"
    assert format_number(1234.5678, precision=3) == "1,234.568"
    assert format_number(1234567.5, sep=" ") == "1 234 567.50"
    assert format_number(1234567.5, sep=".", point=",") == "1.234.567,50"
    assert format_number(999, precision=0, sep="'") == "999"
    assert format_number(-1000, precision=1, sep="_") == "-1_000.0"


def test_format_number_errors():
    with pytest.raises(TypeError, match="value must be a number"):
        format_number("12")
    with pytest.raises(ValueError, match="precision must not be negative"):
        format_number(1, precision=-1)


# --- format_money -----------------------------------------------------------

def test_format_money_defaults_to_usd():
    assert format_money(1234.5) == "$1,234.50"
    assert format_money(0) == "$0.00"


@pytest.mark.parametrize("currency,expected", [
    ("USD", "$1,234.50"), ("eur", "€1,234.50"), ("GBP", "£1,234.50"), ("JPY", "¥1,234.50"),
    ("chf", "1,234.50 CHF"),
])
def test_format_money_currencies(currency, expected):
    assert format_money(1234.5, currency=currency) == expected


def test_format_money_negative_and_options():
    assert format_money(-5.5) == "-$5.50"
    assert format_money(-5.5, currency="SEK") == "-5.50 SEK"
    assert format_money(-0.004) == "$0.00"
    assert format_money(-0.004, precision=3) == "-$0.004"
    assert format_money(1234.5678, currency="EUR", precision=3) == "€1,234.568"
    assert format_money(1234.5, precision=0) == "$1,235"
    assert format_money(1234567, sep=" ") == "$1 234 567.00"


def test_format_money_bad_code():
    with pytest.raises(ValueError, match="currency code must have 3 letters: 'EURO'"):
        format_money(1, currency="EURO")
    with pytest.raises(ValueError, match="3 letters"):
        format_money(1, currency="E")


def test_currency_symbols_table():
    assert utils.CURRENCY_SYMBOLS == {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥"}


# --- percent ----------------------------------------------------------------

def test_percent():
    assert percent(0.25) == "25.0%"
    assert percent(0.12345) == "12.3%"
    assert percent(0.12345, precision=2) == "12.35%"
    assert percent(1.5, precision=0) == "150%"
    assert percent(-0.1) == "-10.0%"


# --- clamp ------------------------------------------------------------------

@pytest.mark.parametrize("value,expected", [(-1, 0), (0, 0), (1, 1), (9, 9), (10, 10), (11, 10)])
def test_clamp(value, expected):
    assert clamp(value, 0, 10) == expected


def test_clamp_returns_value_itself_inside_bounds():
    assert isinstance(clamp(0.0, 0, 10), float)
    assert isinstance(clamp(10.0, 0, 10), float)
    assert isinstance(clamp(-0.5, 0, 10), int)
    assert isinstance(clamp(10.5, 0, 10), int)


def test_clamp_equal_bounds_and_error():
    assert clamp(5, 3, 3) == 3
    assert clamp(1, 3, 3) == 3
    with pytest.raises(ValueError, match=r"low \(4\) must not exceed high \(3\)"):
        clamp(1, 4, 3)


# --- slugify ----------------------------------------------------------------

def test_slugify_basic():
    assert slugify("Hello, World!") == "hello-world"
    assert slugify("  --Already--slugged--  ") == "already-slugged"
    assert slugify("Crème brûlée 2024") == "cr-me-br-l-e-2024"
    assert slugify("") == ""
    assert slugify("!!!") == ""
    assert slugify("abc") == "abc"


def test_slugify_options():
    assert slugify("Hello big World", sep="_") == "hello_big_world"
    assert slugify("Hello big World", max_length=9) == "hello-big"
    assert slugify("Hello big World", max_length=10) == "hello-big"
    assert slugify("Hello big World", max_length=11) == "hello-big-w"
    assert slugify("abcdef", max_length=1) == "a"


def test_slugify_default_max_length():
    text = "word " * 20
    slug = slugify(text)
    assert slug == "-".join(["word"] * 8)
    assert len(slug) == 39
    assert slugify("a" * 40) == "a" * 40
    assert slugify("a" * 41) == "a" * 40


def test_slugify_bad_length():
    with pytest.raises(ValueError, match="max_length must be at least 1"):
        slugify("abc", max_length=0)


# --- chunk ------------------------------------------------------------------

def test_chunk():
    assert chunk([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]
    assert chunk([1, 2, 3, 4], 2) == [[1, 2], [3, 4]]
    assert chunk([1, 2, 3], 1) == [[1], [2], [3]]
    assert chunk([1, 2, 3], 3) == [[1, 2, 3]]
    assert chunk([1, 2, 3], 4) == [[1, 2, 3]]
    assert chunk([], 3) == []
    assert chunk("abcde", 2) == [["a", "b"], ["c", "d"], ["e"]]


def test_chunk_bad_size():
    with pytest.raises(ValueError, match="size must be at least 1"):
        chunk([1], 0)


# --- safe_divide ------------------------------------------------------------

def test_safe_divide():
    assert safe_divide(7, 2) == 3.5
    assert safe_divide(-9, 3) == -3.0
    assert safe_divide(1, 0) == 0.0
    assert safe_divide(1, 0, default=None) is None
    assert safe_divide(1, 0.0, default=-1) == -1
    assert safe_divide(0, 5, default=99) == 0.0


# --- parse_pairs ------------------------------------------------------------

def test_parse_pairs_defaults():
    assert parse_pairs("a=1; b = two ;c=") == {"a": "1", "b": "two", "c": ""}
    assert parse_pairs("") == {}
    assert parse_pairs(" ; ;") == {}
    assert parse_pairs("url=x=y") == {"url": "x=y"}


def test_parse_pairs_custom_separators():
    assert parse_pairs("sku: A1, qty: 2", item_sep=",", kv_sep=":") == {"sku": "A1", "qty": "2"}
    assert parse_pairs("a=1&b=2", item_sep="&") == {"a": "1", "b": "2"}
    assert parse_pairs("a:1;b:2", kv_sep=":") == {"a": "1", "b": "2"}


def test_parse_pairs_strictness():
    with pytest.raises(ValueError, match="missing '=' in 'flag'"):
        parse_pairs("a=1;flag")
    with pytest.raises(ValueError, match="missing ':' in 'flag'"):
        parse_pairs("a:1;flag", kv_sep=":")
    assert parse_pairs("a=1;flag;b=2", strict=False) == {"a": "1", "b": "2"}


def test_parse_pairs_key_errors():
    with pytest.raises(ValueError, match="empty key in ' =1'|empty key in '=1'"):
        parse_pairs("=1")
    with pytest.raises(ValueError, match="duplicate key: a"):
        parse_pairs("a=1; a=2")
    with pytest.raises(ValueError, match="duplicate key: a"):
        parse_pairs("a=1; b=3; a =2", strict=False)


# --- truncate ---------------------------------------------------------------

def test_truncate():
    assert truncate("short") == "short"
    assert truncate("x" * 20) == "x" * 20
    assert truncate("x" * 21) == "x" * 17 + "..."
    assert truncate("abcdefgh", width=5) == "ab..."
    assert truncate("abcdefgh", width=5, suffix="~") == "abcd~"
    assert truncate("abcdefgh", width=3) == "..."
    assert truncate("abcdef", width=6, suffix="") == "abcdef"


def test_truncate_bad_width():
    with pytest.raises(ValueError, match="width must be at least the suffix length"):
        truncate("abcdef", width=2)


# --- pad --------------------------------------------------------------------

def test_pad():
    assert pad("ab", 5) == "ab   "
    assert pad("ab", 5, align="right") == "   ab"
    assert pad("ab", 5, align="center") == " ab  "
    assert pad("ab", 6, align="center", fill="*") == "**ab**"
    assert pad("ab", 3, fill=".") == "ab."
    assert pad("abc", 3) == "abc"
    assert pad("abcd", 3) == "abcd"


def test_pad_errors():
    with pytest.raises(ValueError, match="fill must be a single character"):
        pad("a", 3, fill="--")
    with pytest.raises(ValueError, match="fill must be a single character"):
        pad("a", 3, fill="")
    with pytest.raises(ValueError, match="unknown alignment: middle"):
        pad("a", 3, align="middle")
    assert pad("abc", 3, align="middle") == "abc"
