CSI = '\033['


class Codes:
    def __init__(self):
        for name in dir(self):
            if not name.startswith('_'):
                setattr(self, name, CSI + str(getattr(self, name)) + 'm')


class Fore(Codes):
    BLACK = 30
    RED = 31
    GREEN = 32
    RESET = 39


FORE = Fore()
