import sys

from app.core import normalize, tokens


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    words = [normalize(a) for a in args]
    first = normalize(args[0]) if args else ""
    print(first, len(tokens(" ".join(words))))
