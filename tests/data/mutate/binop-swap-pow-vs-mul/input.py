def energy(mass, speed):
    # kinetic energy, odd spacing kept
    return  mass*speed**2   /  2
