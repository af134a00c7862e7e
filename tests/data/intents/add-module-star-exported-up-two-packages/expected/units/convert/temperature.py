def celsius_to_kelvin(celsius):
    return celsius + 273.15
