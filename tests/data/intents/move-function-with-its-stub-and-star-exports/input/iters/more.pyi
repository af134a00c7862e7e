from typing import Iterable, Iterator, TypeVar, overload

_T = TypeVar('_T')
_U = TypeVar('_U')

def chunked(iterable: Iterable[_T], n: int) -> Iterator[list[_T]]: ...
@overload
def first(iterable: Iterable[_T]) -> _T: ...
@overload
def first(iterable: Iterable[_T], default: _U) -> _T | _U: ...
