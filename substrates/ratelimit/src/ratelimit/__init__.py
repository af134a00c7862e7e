"""Clock-free rate limiters and text statistics."""

from .bucket import LimitError, TokenBucket
from .policy import Decision, Limiter, Policy
from .window import FixedWindow, SlidingCounter, SlidingLog

__all__ = [
    "Decision",
    "FixedWindow",
    "LimitError",
    "Limiter",
    "Policy",
    "SlidingCounter",
    "SlidingLog",
    "TokenBucket",
]
