from lib import wait


def pause():
    return wait(5000)
