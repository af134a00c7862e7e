import datetime

from dates import parse


def week_start(year, week):
    return datetime.date.fromisocalendar(year, week, 1)


def week_end(text):
    """The Sunday of the ISO week ``text`` (``2024-W02``)."""
    return parse.parse_week(text) + datetime.timedelta(days=6)
