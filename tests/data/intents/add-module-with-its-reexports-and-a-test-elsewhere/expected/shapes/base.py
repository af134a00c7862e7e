class Shape:
    def area(self):
        raise NotImplementedError

    def scaled(self, factor):
        raise NotImplementedError
