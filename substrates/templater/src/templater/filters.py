"""Built-in filters: functions taking the value plus optional arguments.

Bad arguments raise ValueError or TypeError; the renderer reports them
with a line number.
"""


class Markup(str):
    """A string that is already safe and must not be escaped again."""


def escape(value, quote=False):
    """Escape ``&``, ``<`` and ``>``; with ``quote`` also both quote marks."""
    if isinstance(value, Markup):
        return value
    result = []
    for ch in str(value):
        if ch == "&":
            result.append("&amp;")
        elif ch == "<":
            result.append("&lt;")
        elif ch == ">":
            result.append("&gt;")
        elif quote and ch == '"':
            result.append("&quot;")
        elif quote and ch == "'":
            result.append("&#39;")
        else:
            result.append(ch)
    return Markup("".join(result))


def safe(value):
    return Markup(str(value))


def upper(value):
    return str(value).upper()


def lower(value):
    return str(value).lower()


def truncate(value, width=20, ellipsis="..."):
    """Cut ``value`` to at most ``width`` characters, marking the cut."""
    if width < 0:
        raise ValueError("width must not be negative")
    text = str(value)
    if len(text) <= width:
        return text
    if width <= len(ellipsis):
        return text[:width]
    return text[:width - len(ellipsis)].rstrip() + ellipsis


def pad(value, width=10, align="left", fill=" "):
    """Pad ``value`` to ``width`` characters; longer values are unchanged."""
    if len(fill) != 1:
        raise ValueError("fill must be a single character")
    text = str(value)
    gap = width - len(text)
    if gap <= 0:
        return text
    if align == "left":
        return text + fill * gap
    if align == "right":
        return fill * gap + text
    if align == "center":
        left = gap // 2
        return fill * left + text + fill * (gap - left)
    raise ValueError(f"unknown alignment {align!r}")


def join(value, sep=""):
    if isinstance(value, str):
        return value
    parts = []
    for item in value:
        parts.append(str(item))
    return sep.join(parts)


def default(value, fallback="", boolean=False):
    """Replace a missing (None) value; with ``boolean`` any falsy value."""
    if value is None:
        return fallback
    if boolean and not value:
        return fallback
    return value


def length(value):
    return len(value)


def plural(count, singular="", suffix="s"):
    """Return ``singular`` when ``count`` is exactly 1, else ``suffix``."""
    if count == 1:
        return singular
    return suffix


def number(value, sep=","):
    """Format an integer with a thousands separator."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError("number filter needs an integer")
    digits = str(abs(value))
    groups = []
    while len(digits) > 3:
        groups.insert(0, digits[-3:])
        digits = digits[:-3]
    groups.insert(0, digits)
    text = sep.join(groups)
    if value < 0:
        return "-" + text
    return text


FILTERS = {
    "default": default,
    "e": escape,
    "escape": escape,
    "join": join,
    "length": length,
    "lower": lower,
    "number": number,
    "pad": pad,
    "plural": plural,
    "safe": safe,
    "truncate": truncate,
    "upper": upper,
}
