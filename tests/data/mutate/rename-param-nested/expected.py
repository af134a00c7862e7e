def outer(x_value, y):
    def closure():
        return x_value + 1  # sees outer x
    def shadow(x):
        return x * 2
    def local():
        x = 5
        return x
    key = lambda x: x.lower()
    total = [x_value for _ in range(y)]
    print(f"{x_value!r} and {y}", sep=x_value)
    obj.x = x_value
    call(x=x_value)
    x_value += 1
    return closure() + shadow(x_value) + local() + key(obj)
