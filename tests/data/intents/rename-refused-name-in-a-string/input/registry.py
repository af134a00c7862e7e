import sys


def render_plain(text):
    return text.strip()


def renderer(name):
    return getattr(sys.modules[__name__], "render_" + name)


HANDLERS = {"render_plain": render_plain}
