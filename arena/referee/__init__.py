"""The referee: plays a match between two bot connections, judges time and legality, records it.

``play_match(bots, seed=...)`` returns a ``MatchResult`` whatever the bots do; ``replay``
rebuilds a recorded match through the engine and ``render_text`` tells it hand by hand.
"""

from arena.referee.clock import ClockConfig, RefereeConfigError
from arena.referee.fault_policy import FaultPolicy
from arena.referee.play import BotConnection, new_match_id, play_match, unplayed_result
from arena.referee.record import (
    DecisionRecord,
    FaultKind,
    MatchResult,
    Termination,
    decode_decisions,
    encode_decisions,
    result_from_dict,
    result_to_dict,
)
from arena.referee.replay import ReplayError, render_text, replay, replay_to_dict, verify

__all__ = [
    "BotConnection",
    "ClockConfig",
    "DecisionRecord",
    "FaultKind",
    "FaultPolicy",
    "MatchResult",
    "RefereeConfigError",
    "ReplayError",
    "Termination",
    "decode_decisions",
    "encode_decisions",
    "new_match_id",
    "play_match",
    "render_text",
    "replay",
    "replay_to_dict",
    "result_from_dict",
    "result_to_dict",
    "unplayed_result",
    "verify",
]
