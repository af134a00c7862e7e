from .text import pad
