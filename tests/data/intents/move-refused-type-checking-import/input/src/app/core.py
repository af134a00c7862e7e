from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .models import Item


def label(item: Item):
    return item.name.title()


def key(text):
    return text[:8]
