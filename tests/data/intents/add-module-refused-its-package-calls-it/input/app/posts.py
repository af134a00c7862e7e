def permalink(slug):
    return "/posts/" + slug
