from typing import Iterable, TypeVar, overload

_T = TypeVar('_T')
_U = TypeVar('_U')

@overload
def first(iterable: Iterable[_T]) -> _T: ...
@overload
def first(iterable: Iterable[_T], default: _U) -> _T | _U: ...
