import datetime


def week_start(year, week):
    return datetime.date.fromisocalendar(year, week, 1)
