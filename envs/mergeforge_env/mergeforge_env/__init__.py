"""Typed client of the mergeforge environment (`mergeforge serve`).

An episode is a real git repository stopped in the middle of a merge; the agent reads
and edits files, runs commands and the tests, and is rewarded when the project's tests
pass with no conflict markers left.
"""

from .client import MergeforgeEnv
from .models import MergeforgeAction, MergeforgeObservation, MergeforgeState

__all__ = ["MergeforgeAction", "MergeforgeEnv", "MergeforgeObservation", "MergeforgeState"]
