"""Item records and SKU validation.

SKUs are short upper-case codes made of letters, digits and single dashes.
The first two characters may name a category prefix.  All money amounts in
this package are integer cents.
"""

SKU_MIN_LENGTH = 4
SKU_MAX_LENGTH = 12

CATEGORY_PREFIXES = {
    "HW": "hardware",
    "SW": "software",
    "AC": "accessory",
}


class ItemError(ValueError):
    """Raised when an SKU or item field is invalid."""


def normalize_sku(raw):
    """Return the canonical (stripped, upper-case) form of ``raw``."""
    if not isinstance(raw, str):
        raise ItemError("sku must be a string")
    sku = raw.strip().upper()
    if len(sku) < SKU_MIN_LENGTH:
        raise ItemError("sku too short")
    if len(sku) > SKU_MAX_LENGTH:
        raise ItemError("sku too long")
    previous = ""
    for ch in sku:
        if not (ch.isalnum() or ch == "-"):
            raise ItemError(f"invalid character {ch!r} in sku")
        if ch == "-" and previous == "-":
            raise ItemError("sku cannot contain consecutive dashes")
        previous = ch
    if sku[0] == "-" or sku[-1] == "-":
        raise ItemError("sku cannot start or end with a dash")
    return sku


def sku_category(sku):
    """Return the category named by the two-letter prefix, or 'general'."""
    prefix = sku[:2]
    if prefix in CATEGORY_PREFIXES:
        return CATEGORY_PREFIXES[prefix]
    return "general"


def check_digit(sku):
    """Return a weighted mod-11 check character for ``sku``.

    Digits count as their value and letters as 10..35; each counted
    character is weighted by its position (dashes are skipped).  A
    remainder of 10 is written as 'X'.
    """
    total = 0
    position = 1
    for ch in normalize_sku(sku):
        if ch == "-":
            continue
        if ch.isdigit():
            value = int(ch)
        else:
            value = ord(ch) - ord("A") + 10
        total += value * position
        position += 1
    remainder = total % 11
    if remainder == 10:
        return "X"
    return str(remainder)


class Item:
    """A stocked item with a standard unit cost and reorder settings."""

    def __init__(self, sku, name, unit_cost, reorder_level=5, reorder_qty=10):
        self.sku = normalize_sku(sku)
        name = name.strip()
        if not name:
            raise ItemError("name must not be empty")
        if unit_cost < 0:
            raise ItemError("unit cost must not be negative")
        if reorder_level < 0:
            raise ItemError("reorder level must not be negative")
        if reorder_qty < 1:
            raise ItemError("reorder quantity must be at least 1")
        self.name = name
        self.unit_cost = unit_cost
        self.reorder_level = reorder_level
        self.reorder_qty = reorder_qty

    @property
    def category(self):
        return sku_category(self.sku)

    def label(self, width=24, fill="."):
        """Return 'SKU name' padded or cut to exactly ``width`` characters."""
        if width < len(self.sku) + 2:
            raise ItemError("label width too small")
        text = self.sku + " " + self.name
        if len(text) > width:
            return text[: width - 1] + "~"
        return text + fill * (width - len(text))

    def needs_reorder(self, available):
        """True when ``available`` is at or below the reorder level."""
        return available <= self.reorder_level

    def __eq__(self, other):
        if not isinstance(other, Item):
            return NotImplemented
        return self.sku == other.sku

    def __hash__(self):
        return hash(self.sku)

    def __repr__(self):
        return f"Item({self.sku!r}, {self.name!r}, {self.unit_cost})"
