from .temperature import celsius_to_kelvin

__all__ = ["celsius_to_kelvin"]
