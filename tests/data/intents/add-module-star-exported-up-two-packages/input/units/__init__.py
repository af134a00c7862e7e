from units.convert import *

__all__ = ["feet_to_metres", "metres_to_feet", "celsius_to_kelvin"]
