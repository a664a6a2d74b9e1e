"""The match clock: a per-decision limit plus a time bank, measured on the referee's clock.

Chess-clock style: a decision may take up to ``move_time_ms``; time beyond that is taken from
the seat's bank, and a decision that takes longer than both is a timeout. The deadline of every
call is ``move_time + bank left``; the referee's own monotonic measurement decides, so an answer
that gRPC delivers after the deadline by the referee's clock is a timeout all the same.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.errors import ArenaError

_INT32_MAX = 2**31 - 1


class RefereeConfigError(ArenaError):
    """A clock or fault policy that cannot be played (a negative limit, zero faults...)."""


@dataclass(frozen=True, slots=True)
class ClockConfig:
    """The time control of a match, the same for both seats."""

    move_time_ms: int = 1000
    """The limit of one decision."""
    time_bank_ms: int = 0
    """A per-match reserve from which time beyond ``move_time_ms`` is taken."""

    def __post_init__(self) -> None:
        if type(self.move_time_ms) is not int or not 0 < self.move_time_ms <= _INT32_MAX:
            raise RefereeConfigError(
                "the move time must be a positive number of milliseconds, "
                f"got {self.move_time_ms!r}"
            )
        if type(self.time_bank_ms) is not int or not 0 <= self.time_bank_ms <= _INT32_MAX:
            raise RefereeConfigError(
                f"the time bank must be 0 or more milliseconds, got {self.time_bank_ms!r}"
            )

    def describe(self) -> str:
        """``1000ms`` or ``1000ms+5000ms bank``."""
        if self.time_bank_ms:
            return f"{self.move_time_ms}ms+{self.time_bank_ms}ms bank"
        return f"{self.move_time_ms}ms"


class SeatClock:
    """One seat's clock during a match; also the ``Clock`` told to the bot (``ClockLike``).

    ``move_time_ms`` and ``time_bank_ms`` are what the bot is told; the bank is kept exactly in
    nanoseconds and shown rounded down, so a bot is never told it has more than it has.
    """

    __slots__ = ("bank_ns", "move_ns", "move_time_ms", "time_bank_ms")

    def __init__(self, config: ClockConfig) -> None:
        self.move_time_ms = config.move_time_ms
        self.time_bank_ms = config.time_bank_ms
        self.move_ns = config.move_time_ms * 1_000_000
        self.bank_ns = config.time_bank_ms * 1_000_000

    @property
    def limit_ns(self) -> int:
        """The deadline of the next decision, from the moment it is asked."""
        return self.move_ns + self.bank_ns

    def charge(self, elapsed_ns: int) -> bool:
        """Account one decision that took ``elapsed_ns``; False if it overran the deadline.

        Time beyond the move limit comes out of the bank; an overrun empties it."""
        over = elapsed_ns - self.move_ns
        if over <= 0:
            return True
        if over > self.bank_ns:
            self.bank_ns = 0
            self.time_bank_ms = 0
            return False
        self.bank_ns -= over
        self.time_bank_ms = self.bank_ns // 1_000_000
        return True
