import datetime

from dates.errors import DateError
from dates.parse import WEEK


def week_start(year, week):
    return datetime.date.fromisocalendar(year, week, 1)


def parse_week(text):
    match = WEEK.fullmatch(text)
    if not match:
        raise DateError(text)
    return week_start(int(match[1]), int(match[2]))
