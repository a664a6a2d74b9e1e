"""A small thread-safe LRU: the web's caches of what never changes for its key (a recorded
match's replay frames; the leaderboard for one fingerprint of the ratings)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from threading import Lock
from typing import Generic, TypeVar

V = TypeVar("V")


class Lru(Generic[V]):
    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = Lock()

    def get(self, key: Hashable) -> V | None:
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
            return hit

    def put(self, key: Hashable, value: V) -> None:
        with self._lock:
            self._items[key] = value
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def get_or_make(self, key: Hashable, make: Callable[[], V]) -> V:
        """The value kept for ``key``, else ``make()``'s, kept (made outside the lock: two
        threads may both make it, and the last one is kept)."""
        hit = self.get(key)
        if hit is not None:
            return hit
        made = make()
        self.put(key, made)
        return made
