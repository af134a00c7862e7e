import re

from dates import calendar
from dates.errors import DateError

WEEK = re.compile(r"(\d{4})-W(\d{2})")


def parse_week(text):
    match = WEEK.fullmatch(text)
    if not match:
        raise DateError(text)
    return calendar.week_start(int(match[1]), int(match[2]))


def parse_year(text):
    if not text.isdigit():
        raise DateError(text)
    return int(text)
