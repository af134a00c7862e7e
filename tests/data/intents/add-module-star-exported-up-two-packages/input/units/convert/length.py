FOOT = 0.3048


def feet_to_metres(feet):
    return feet * FOOT


def metres_to_feet(metres):
    return metres / FOOT
