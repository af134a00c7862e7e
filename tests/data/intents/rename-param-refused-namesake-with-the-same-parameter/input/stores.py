class Memory:
    def put(self, key, value):
        self.last = (key, value)


class Disk:
    def put(self, key, value):
        with open(key, "w") as handle:
            handle.write(value)


def save(store, key, value):
    store.put(key, value=value)
