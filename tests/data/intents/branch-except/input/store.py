"""A tiny key-value store."""

import json


def load(text, default=None):
    """Parse JSON `text`, or give `default`."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return default
    except TypeError:
        return default


def lookup(table, key, default=None):
    """The value of `key` in `table`."""
    for row in table:
        if row is None:
            continue
        if key in row:
            return row[key]
    return default
