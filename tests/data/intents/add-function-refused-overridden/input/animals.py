"""Animals and their sounds."""


class Dog:
    def sound(self):
        return "woof"

    def legs(self):
        return 4


class Puppy(Dog):
    def sound(self):
        return "yip"
