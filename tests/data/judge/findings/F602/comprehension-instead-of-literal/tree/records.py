def rows(fields, value):
    clean = value.strip().lower()
    return dict((field, clean) for field in fields)
