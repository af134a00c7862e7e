import re

from dates.errors import DateError

WEEK = re.compile(r"(\d{4})-W(\d{2})")


def parse_year(text):
    if not text.isdigit():
        raise DateError(text)
    return int(text)
