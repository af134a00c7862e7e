def get_value(record):
    return record["value"]


def extract(records, get_value=None):
    getter = get_value or (lambda r: r["value"])
    return [getter(r) for r in records]
