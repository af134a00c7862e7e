import datetime

import pytest

from dates.errors import DateError
from dates.parse import parse_week, parse_year


def test_parse_week():
    assert parse_week("2024-W02") == datetime.date(2024, 1, 8)
    with pytest.raises(DateError):
        parse_week("x")


def test_parse_year():
    assert parse_year("2024") == 2024
