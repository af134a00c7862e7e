from utils import (
    clamp,
    slugify,
)


def page_name(title, width):
    return slugify(title)[: clamp(width, 1, 80)]
