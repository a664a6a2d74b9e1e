"""The service's accepted submissions, which its per-token quotas count
(arena.service.permissions)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func, select

from arena.store.core import StoreCore
from arena.store.models import Submission


class QuotasMixin(StoreCore):
    """Submissions through the service: how many a token made lately, how much is stored."""

    def record_submission(self, token_id: int | None, content_hash: str, stored_bytes: int) -> None:
        with self._write() as s:
            s.add(
                Submission(token_id=token_id, content_hash=content_hash, stored_bytes=stored_bytes)
            )

    def submissions_since(self, token_id: int | None, since: datetime) -> int:
        with self._read() as s:
            return int(
                s.scalar(
                    select(func.count())
                    .select_from(Submission)
                    .where(Submission.token_id.is_(token_id) if token_id is None
                           else Submission.token_id == token_id)
                    .where(Submission.created_at >= since)
                )
                or 0
            )  # fmt: skip

    def stored_bytes(self, token_id: int | None = None, *, everyone: bool = False) -> int:
        """Bytes stored for the token's uploads (each content counted once, by its first
        uploader), or for everyone's with ``everyone``."""
        query = select(func.coalesce(func.sum(Submission.stored_bytes), 0))
        if not everyone:
            query = query.where(Submission.token_id == token_id)
        with self._read() as s:
            return int(s.scalar(query) or 0)
