def outer(x, y):
    def closure():
        return x + 1  # sees outer x
    def shadow(x):
        return x * 2
    def local():
        x = 5
        return x
    key = lambda x: x.lower()
    total = [x for _ in range(y)]
    print(f"{x!r} and {y}", sep=x)
    obj.x = x
    call(x=x)
    x += 1
    return closure() + shadow(x) + local() + key(obj)
