from .slug import slugify

HOME = slugify("Home Page")
