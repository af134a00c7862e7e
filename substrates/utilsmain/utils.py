"""Small formatting and parsing helpers shared by the invoice builder."""

from decimal import Decimal, ROUND_HALF_UP


CURRENCY_SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥"}


def round_half_up(value, precision=2):
    """Round value half away from zero and return a Decimal."""
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        raise TypeError("value must be a number")
    if precision < 0:
        raise ValueError("precision must not be negative")
    quantum = Decimal(10) ** -precision
    return Decimal(str(value)).quantize(quantum, rounding=ROUND_HALF_UP)


def format_number(value, precision=2, sep=",", point="."):
    """Format a number with grouped thousands, e.g. 1234.5 -> '1,234.50'."""
    rounded = round_half_up(value, precision=precision)
    text = f"{abs(rounded):f}"
    if "." in text:
        whole, frac = text.split(".")
    else:
        whole, frac = text, ""
    groups = []
    while len(whole) > 3:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    groups.insert(0, whole)
    result = sep.join(groups)
    if precision > 0:
        result = result + point + frac
    if rounded < 0:
        result = "-" + result
    return result


def format_money(amount, currency="USD", precision=2, sep=","):
    """Format an amount with a currency symbol, or a trailing ISO code if unknown."""
    code = currency.upper()
    if len(code) != 3:
        raise ValueError(f"currency code must have 3 letters: {currency!r}")
    body = format_number(abs(amount), precision=precision, sep=sep)
    if code in CURRENCY_SYMBOLS:
        text = CURRENCY_SYMBOLS[code] + body
    else:
        text = body + " " + code
    if round_half_up(amount, precision=precision) < 0:
        text = "-" + text
    return text


def percent(ratio, precision=1):
    """Format a ratio (0.25) as a percentage string ('25.0%')."""
    return format_number(ratio * 100, precision=precision) + "%"


def clamp(value, low, high):
    if low > high:
        raise ValueError(f"low ({low}) must not exceed high ({high})")
    if value < low:
        return low
    if value > high:
        return high
    return value


def slugify(text, sep="-", max_length=40):
    """Lower-case ASCII words of text joined by sep, cut to max_length."""
    if max_length < 1:
        raise ValueError("max_length must be at least 1")
    parts = []
    current = ""
    for ch in text.lower():
        if ch.isascii() and ch.isalnum():
            current += ch
        elif current:
            parts.append(current)
            current = ""
    if current:
        parts.append(current)
    slug = sep.join(parts)
    if len(slug) > max_length:
        slug = slug[:max_length].rstrip(sep)
    return slug


def chunk(items, size):
    """Split items into lists of length size (the last may be shorter)."""
    if size < 1:
        raise ValueError("size must be at least 1")
    chunks = []
    current = []
    for item in items:
        current.append(item)
        if len(current) == size:
            chunks.append(current)
            current = []
    if current:
        chunks.append(current)
    return chunks


def safe_divide(numerator, denominator, default=0.0):
    if denominator == 0:
        return default
    return numerator / denominator


def parse_pairs(text, item_sep=";", kv_sep="=", strict=True):
    """Parse 'a=1; b=2' into {'a': '1', 'b': '2'}."""
    result = {}
    for raw in text.split(item_sep):
        item = raw.strip()
        if not item:
            continue
        if kv_sep not in item:
            if strict:
                raise ValueError(f"missing {kv_sep!r} in {item!r}")
            continue
        key, value = item.split(kv_sep, 1)
        key = key.strip()
        if key == "":
            raise ValueError(f"empty key in {item!r}")
        if key in result:
            raise ValueError(f"duplicate key: {key}")
        result[key] = value.strip()
    return result


def truncate(text, width=20, suffix="..."):
    if width < len(suffix):
        raise ValueError("width must be at least the suffix length")
    if len(text) <= width:
        return text
    return text[: width - len(suffix)] + suffix


def pad(text, width, align="left", fill=" "):
    """Pad text to width; never cuts text that is already wider."""
    if len(fill) != 1:
        raise ValueError("fill must be a single character")
    gap = width - len(text)
    if gap <= 0:
        return text
    if align == "left":
        return text + fill * gap
    elif align == "right":
        return fill * gap + text
    elif align == "center":
        left = gap // 2
        return fill * left + text + fill * (gap - left)
    raise ValueError(f"unknown alignment: {align}")
