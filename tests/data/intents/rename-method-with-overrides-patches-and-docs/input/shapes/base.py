class Shape:
    """A plane figure; subclasses give `compute_area`."""

    def compute_area(self):
        raise NotImplementedError

    def describe(self):
        # The area comes from compute_area(), which subclasses override.
        return f"{type(self).__name__} of area {self.compute_area():.2f}"
