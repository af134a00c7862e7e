def greet(person):
    name = person.title()
    return "Hello, {name}!".format(**locals())
