COLORS = {
    "red": 31,
    "green": 32,
    "yellow": 33,
    "blue": 34,
}


def paint(text, color):
    return "\x1b[%dm%s\x1b[0m" % (COLORS[color], text)
