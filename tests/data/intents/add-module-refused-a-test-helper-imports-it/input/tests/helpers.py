from app.slug import slugify


def slug_of(title):
    return slugify(title)
