from typing import Iterable, TypeVar

_T = TypeVar('_T')

def tail(n: int, iterable: Iterable[_T]) -> list[_T]: ...
