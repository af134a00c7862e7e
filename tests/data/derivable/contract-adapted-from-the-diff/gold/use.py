from lib import wait


def pause():
    return wait(5000)


def nap():
    return wait(2 * 1000)
