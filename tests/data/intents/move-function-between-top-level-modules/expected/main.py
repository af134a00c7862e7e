from utils import (
    clamp,
)
from text import slugify


def page_name(title, width):
    return slugify(title)[: clamp(width, 1, 80)]
