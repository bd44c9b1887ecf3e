"""What `serve` keeps between rebuilds: answers about the data, each keyed by everything it reads (a text, a
file's bytes and a place in it, a matcher…), so that a rebuild computes again only what an edit changed.

Every such store is made here (`Answers`, `kept_function`), so that they are named in one place and `forget_all`
can empty them all: the test that what is kept follows the content compares with a run that keeps nothing.
Each store is bounded: one that is full is emptied (a long `serve` of a growing corpus).

An LRU cache that one rebuild cycles through with more keys than it holds keeps none of them: at 10x the bundled
data, 49,190 texts against a cache of 32,768 were all looked at again on every rebuild (validate and resolve 6.5 s
of an edit's 9.3 s). The bounds are sized for a corpus 20x the bundled data (1x: 4,919 texts, 36 matchers;
10x: 49,190 and 360).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, ParamSpec, TypeVar

if TYPE_CHECKING:
    from functools import _lru_cache_wrapper

KEPT_MATCHERS = 1 << 10
KEPT_TEXTS = 1 << 17

_Key = TypeVar("_Key")
_Answer = TypeVar("_Answer")
_Params = ParamSpec("_Params")


class Answers(Generic[_Key, _Answer]):
    """Answers kept by key, at most `limit` of them."""

    def __init__(self, limit: int = KEPT_TEXTS) -> None:
        self.limit = limit
        self.answers: dict[_Key, _Answer] = {}
        _STORES.append(self)

    def of(self, key: _Key, compute: Callable[[], _Answer]) -> _Answer:
        """The answer kept for `key`, or `compute()`'s, kept."""
        if key not in self.answers:
            self.keep(key, compute())
        return self.answers[key]

    def keep(self, key: _Key, answer: _Answer) -> None:
        if len(self.answers) >= self.limit:
            self.answers.clear()
        self.answers[key] = answer

    def __contains__(self, key: object) -> bool:
        return key in self.answers

    def __len__(self) -> int:
        return len(self.answers)

    def clear(self) -> None:
        self.answers.clear()


def kept_function(limit: int = KEPT_TEXTS) -> Callable[[Callable[_Params, _Answer]], _lru_cache_wrapper[_Answer]]:
    """A function of hashable arguments whose answers are kept (functools.lru_cache of `limit` answers)."""

    def keep(function: Callable[_Params, _Answer]) -> _lru_cache_wrapper[_Answer]:
        kept = functools.lru_cache(maxsize=limit)(function)
        _FUNCTIONS.append(kept)
        return kept

    return keep


def forget_all() -> None:
    """Empty every store: the next run computes everything again."""
    for store in _STORES:
        store.clear()
    for function in _FUNCTIONS:
        function.cache_clear()


_STORES: list[Answers[Any, Any]] = []  # filled as the modules that keep answers are imported
_FUNCTIONS: list[_lru_cache_wrapper[Any]] = []
