"""The package's command line: `python -m pkg.cli AMOUNT CODE` prints the amount."""

import sys


def render(amount, code):
    return "%s %s" % (amount, code.upper())


def main(argv):
    print(render(int(argv[0]), argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
