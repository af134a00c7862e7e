"""Nested lookups."""

from functools import partial


def get(obj, path, default=None):
    """Return the value at ``path`` of ``obj``.

    Args:
        obj (dict): The object to query.
        path (str): Dotted keys.
        default: What to return when ``path`` is missing; `default` is also
            returned for a ``None`` value.

    Returns:
        The value, or the default.
    """
    for key in path.split("."):
        if not isinstance(obj, dict) or key not in obj:
            return default
        obj = obj[key]
    # `default` stands in for None too
    return default if obj is None else obj


def get_many(obj, paths, default=None):
    """Each path's value, with `default` for the missing ones."""
    return [get(obj, path, default=default) for path in paths]


get_or_zero = partial(get, default=0)
