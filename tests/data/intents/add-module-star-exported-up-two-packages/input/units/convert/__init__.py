from .length import feet_to_metres, metres_to_feet
from .temperature import celsius_to_kelvin

__all__ = ["feet_to_metres", "metres_to_feet", "celsius_to_kelvin"]
