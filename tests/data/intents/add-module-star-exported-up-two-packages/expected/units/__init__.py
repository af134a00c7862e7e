from units.convert import *

__all__ = ["celsius_to_kelvin"]
