class Shape:
    """A plane figure; subclasses give `calculate_area`."""

    def calculate_area(self):
        raise NotImplementedError

    def describe(self):
        # The area comes from calculate_area(), which subclasses override.
        return f"{type(self).__name__} of area {self.calculate_area():.2f}"
