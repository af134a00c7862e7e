"""Nested lookups."""

from functools import partial


def get(obj, path, fallback=None):
    """Return the value at ``path`` of ``obj``.

    Args:
        obj (dict): The object to query.
        path (str): Dotted keys.
        fallback: What to return when ``path`` is missing; `fallback` is also
            returned for a ``None`` value.

    Returns:
        The value, or the default.
    """
    for key in path.split("."):
        if not isinstance(obj, dict) or key not in obj:
            return fallback
        obj = obj[key]
    # `fallback` stands in for None too
    return fallback if obj is None else obj


def get_many(obj, paths, default=None):
    """Each path's value, with `default` for the missing ones."""
    return [get(obj, path, fallback=default) for path in paths]


get_or_zero = partial(get, fallback=0)
