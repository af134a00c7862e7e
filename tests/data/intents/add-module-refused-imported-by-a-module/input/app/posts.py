from app.slug import slugify


def permalink(title):
    return "/posts/" + slugify(title)
