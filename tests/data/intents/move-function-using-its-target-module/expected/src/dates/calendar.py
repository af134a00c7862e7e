import datetime

from dates import parse
from dates.errors import DateError


def week_start(year, week):
    return datetime.date.fromisocalendar(year, week, 1)


def week_end(text):
    """The Sunday of the ISO week ``text`` (``2024-W02``)."""
    return parse_week(text) + datetime.timedelta(days=6)


def parse_week(text):
    match = parse.WEEK.fullmatch(text)
    if not match:
        raise DateError(text)
    return week_start(int(match[1]), int(match[2]))
