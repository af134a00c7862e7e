from lib import wait


def pause():
    return wait(5)


def nap():
    return wait(2)
