"""What the ladder keeps between runs besides its matches: which bot versions it paused and why,
and what it is playing now (for ``arena ladder status``). One JSON settings row each."""

from __future__ import annotations

import json
from typing import Any

from arena.store.core import StoreCore
from arena.store.errors import StoreError
from arena.store.models import Setting

LADDER_PAUSES_KEY = "ladder.paused"
LADDER_STATUS_KEY = "ladder.status"


class LadderStateMixin(StoreCore):
    """The ladder's pauses and its last published status."""

    def ladder_pauses(self) -> dict[int, dict[str, Any]]:
        """Paused bot versions by id: ``{"reason": …, "at": …, "kind": …}`` each."""
        raw = self._setting(LADDER_PAUSES_KEY) or {}
        return {int(k): dict(v) for k, v in raw.items()}

    def pause_ladder_version(
        self, version_id: int, reason: str, at: str, *, kind: str = "faults"
    ) -> None:
        """Pause a version on the ladder; ``kind`` says why in a word (``faults``, or
        ``not_started``: a new version of the bot must then start once before it plays)."""
        with self._write() as s:
            row = s.get(Setting, LADDER_PAUSES_KEY, populate_existing=True)
            value = dict(row.value) if row is not None else {}
            value[str(version_id)] = {"reason": reason[:500], "at": at, "kind": kind}
            _put(s, row, LADDER_PAUSES_KEY, value)

    def unpause_ladder_version(self, version_id: int) -> None:
        with self._write() as s:
            row = s.get(Setting, LADDER_PAUSES_KEY, populate_existing=True)
            if row is None or str(version_id) not in row.value:
                return
            value = dict(row.value)
            del value[str(version_id)]
            _put(s, row, LADDER_PAUSES_KEY, value)

    def ladder_status(self) -> dict[str, Any] | None:
        """What the ladder last said it was doing, or None if no ladder ever ran here."""
        return self._setting(LADDER_STATUS_KEY)

    def set_ladder_status(self, status: dict[str, Any]) -> None:
        try:
            value = json.loads(json.dumps(status))
        except (TypeError, ValueError) as exc:
            raise StoreError(f"ladder status must be JSON data: {exc}") from None
        with self._write() as s:
            row = s.get(Setting, LADDER_STATUS_KEY, populate_existing=True)
            _put(s, row, LADDER_STATUS_KEY, value)

    def _setting(self, key: str) -> Any:
        with self._read() as s:
            row = s.get(Setting, key)
            return None if row is None else row.value


def _put(s: Any, row: Setting | None, key: str, value: Any) -> None:
    if row is None:
        s.add(Setting(key=key, value=value))
    else:
        row.value = value
