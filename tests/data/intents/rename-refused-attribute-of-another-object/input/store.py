def load_items(path):
    with open(path) as f:
        return f.read().split()


class Cache:
    def __init__(self, loader):
        self.load_items = loader
