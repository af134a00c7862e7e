class DateError(ValueError):
    pass
