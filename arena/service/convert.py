"""Store values <-> arena.v1 messages, both ways: the server sends what the store holds, and the
remote CLI turns the messages back into the same values its local commands print."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, cast

from google.protobuf.timestamp_pb2 import Timestamp

from arena._gen.arena.v1 import arena_pb2 as pb
from arena._gen.spades.v1 import bot_pb2
from arena.bot_protocol.messages import (
    card_from_pb,
    card_to_pb,
    ruleset_from_pb,
    ruleset_to_pb,
    termination_from_pb,
    termination_to_pb,
)
from arena.errors import ArenaError
from arena.referee.record import DecisionRecord, FaultKind, MatchResult, Termination
from arena.rules.decisions import Decision
from arena.rules.ruleset import RuleSet
from arena.store import (
    BotInfo,
    BotVersionInfo,
    LeaderboardRow,
    MatchSummary,
    StoredMatch,
    TournamentInfo,
    TournamentStatus,
)
from arena.tournament.schedule import DEFAULT_DEALS, DealMode
from arena.tournament.standings import FaultRow, HeadToHead, Standings
from arena.visibility import shown_tournament_seed, tournament_seed_hidden


def timestamp(value: datetime | None) -> Timestamp | None:
    if value is None:
        return None
    ts = Timestamp()
    ts.FromDatetime(value.astimezone(UTC))
    return ts


def from_timestamp(ts: Timestamp) -> datetime:
    return ts.ToDatetime(tzinfo=UTC)


# -- bots --------------------------------------------------------------------------------------


def bot_version_to_pb(v: BotVersionInfo) -> pb.BotVersion:
    return pb.BotVersion(
        version=v.version_label, content_hash=v.content_hash, created_at=timestamp(v.created_at)
    )


def bot_to_pb(bot: BotInfo, owner: str | None, *, with_versions: bool) -> pb.Bot:
    msg = pb.Bot(name=bot.name, owner=owner or "")
    if bot.versions:
        msg.latest_version.CopyFrom(bot_version_to_pb(bot.latest))
    if with_versions:
        msg.versions.extend(bot_version_to_pb(v) for v in bot.versions)
    return msg


# -- tournaments -------------------------------------------------------------------------------

POLICIES = {"forfeit": pb.FAULT_POLICY_FORFEIT, "substitute": pb.FAULT_POLICY_SUBSTITUTE}


def policy_from_pb(value: int) -> str | None:
    for name, number in POLICIES.items():
        if number == value:
            return name
    return None


def _policy_kind(policy: Any) -> str:
    return str(policy.get("kind")) if isinstance(policy, dict) else str(policy)


def tournament_to_pb(info: TournamentInfo, *, running_here: bool) -> pb.Tournament:
    """The tournament; a RUNNING one that no runner of this server plays is INTERRUPTED."""
    config: dict[str, Any] = info.config
    if info.status is TournamentStatus.FINISHED:
        state = pb.TOURNAMENT_STATE_FINISHED
    elif info.status is TournamentStatus.CANCELLED:
        state = pb.TOURNAMENT_STATE_CANCELLED
    elif running_here:
        state = pb.TOURNAMENT_STATE_RUNNING
    else:
        state = pb.TOURNAMENT_STATE_INTERRUPTED
    msg = pb.Tournament(
        id=info.id,
        state=state,
        bots=[str(b["name"]) if isinstance(b, dict) else str(b) for b in config.get("bots", [])],
        games=int(config.get("games", 0)),
        concurrency=int(config.get("concurrency", 0)),
        # The seed gives away every deal: shown once the tournament is over (arena.visibility).
        seed=shown_tournament_seed(info, int(config.get("seed", 0))) or 0,
        seed_secret=tournament_seed_hidden(info),
        move_timeout_ms=int(config.get("move_timeout_ms", 0)),
        policy=POLICIES.get(_policy_kind(config.get("policy")), pb.FAULT_POLICY_UNSPECIFIED),
        matches_total=info.games_total,
        matches_done=info.games_done,
        created_at=timestamp(info.created_at),
    )
    rules = config.get("rules")
    if isinstance(rules, dict):
        msg.rules.CopyFrom(ruleset_to_pb(RuleSet.from_dict(rules)))
    for b in config.get("bots", []):
        if isinstance(b, dict):
            msg.entrants.add(bot=str(b.get("name", "")), version=str(b.get("version", "")))
    policy = config.get("policy")
    if isinstance(policy, dict):
        msg.max_faults = int(policy.get("max_faults", 0))
    msg.time_bank_ms = int(config.get("time_bank_ms", 0))
    msg.deals = DEALS.get(str(config.get("deals")), pb.DEAL_MODE_UNSPECIFIED)
    return msg


DEALS = {
    "pairs": pb.DEAL_MODE_PAIRS,
    "duplicate": pb.DEAL_MODE_DUPLICATE,
    "independent": pb.DEAL_MODE_INDEPENDENT,
}


def deals_from_pb(value: int) -> str | None:
    for name, number in DEALS.items():
        if number == value:
            return name
    return None


def deal_mode_from_pb(value: int) -> DealMode:
    """A request's deal mode: the arena's default when unset; an error for a number this
    server does not know (a newer client's), rather than another mode in its place."""
    if value == pb.DEAL_MODE_UNSPECIFIED:
        return DEFAULT_DEALS
    name = deals_from_pb(value)
    if name is None:
        raise ArenaError(f"deals: unknown deal mode {value} (pairs, duplicate or independent)")
    return DealMode(name)


def standings_to_pb(standings: Standings) -> pb.TournamentStandings:
    return pb.TournamentStandings(
        leaderboard=[leaderboard_row_to_pb(r) for r in standings.leaderboard],
        head_to_head=[
            pb.HeadToHead(
                bot_a=h.bot_a, bot_b=h.bot_b, matches=h.matches, wins_a=h.wins_a,
                wins_b=h.wins_b, draws=h.draws, pairs_won_a=h.pairs_won_a,
                pairs_won_b=h.pairs_won_b, pairs_split=h.pairs_split, margin_a=h.margin_a,
                pairs=h.pairs, score_a=h.score_a, score_a_low=h.score_a_low,
                score_a_high=h.score_a_high,
            )
            for h in standings.head_to_head
        ],
        faults=[
            pb.BotFaults(bot=f.bot, faults=f.faults, forfeits=dict(f.forfeits))
            for f in standings.faults
        ],
    )  # fmt: skip


def standings_from_pb(msg: pb.TournamentStandings, played: int, total: int) -> Standings:
    return Standings(
        leaderboard=[leaderboard_row_from_pb(r) for r in msg.leaderboard],
        head_to_head=[
            HeadToHead(
                bot_a=h.bot_a, bot_b=h.bot_b, matches=h.matches, wins_a=h.wins_a,
                wins_b=h.wins_b, draws=h.draws, pairs_won_a=h.pairs_won_a,
                pairs_won_b=h.pairs_won_b, pairs_split=h.pairs_split, margin_a=h.margin_a,
                pairs=h.pairs,
                score_a=h.score_a if h.HasField("score_a") else None,
                score_a_low=h.score_a_low if h.HasField("score_a_low") else None,
                score_a_high=h.score_a_high if h.HasField("score_a_high") else None,
            )
            for h in msg.head_to_head
        ],
        faults=[FaultRow(f.bot, f.faults, dict(sorted(f.forfeits.items()))) for f in msg.faults],
        played=played,
        total=total,
    )  # fmt: skip


# -- matches -----------------------------------------------------------------------------------


def _split_ref(ref: str) -> tuple[str, str]:
    name, _, version = ref.partition("@")
    return name, version


def match_to_pb(m: MatchSummary, rules: RuleSet | None = None) -> pb.Match:
    msg = pb.Match(
        id=m.match_id,
        tournament_id=m.tournament_id or 0,
        pair_id="" if m.pair_id is None else str(m.pair_id),
        seed=m.seed,
        engine_version=m.engine_version,
        hands_played=m.hands_played,
        termination=termination_to_pb(m.termination),
        detail=m.detail,
        started_at=timestamp(m.started_at),
        finished_at=timestamp(m.finished_at),
        rated=m.rated,
        unrated_reason=m.unrated_reason or "",
    )
    for seat in (0, 1):
        bot, version = _split_ref(m.players[seat])
        msg.seats.add(bot=bot, version=version, faults=m.faults[seat], score=m.scores[seat])
    if m.winner is not None:
        msg.winner = m.winner
    if rules is not None:
        msg.rules.CopyFrom(ruleset_to_pb(rules))
    return msg


_KINDS = {
    Decision.DOUBLE_NIL: pb.DECISION_KIND_DOUBLE_NIL,
    Decision.DRAW: pb.DECISION_KIND_DRAW,
    Decision.EXCHANGE: pb.DECISION_KIND_EXCHANGE,
    Decision.BID: pb.DECISION_KIND_BID,
    Decision.PLAY: pb.DECISION_KIND_PLAY,
}
_DECISIONS = {v: k for k, v in _KINDS.items()}
_FAULTS = {f: cast(pb.FaultKind, pb.FaultKind.Value("FAULT_KIND_" + f.name)) for f in FaultKind}
_FAULT_KINDS = {v: k for k, v in _FAULTS.items()}


def decision_to_pb(d: DecisionRecord) -> pb.Decision:
    msg = pb.Decision(seat=d.seat, kind=_KINDS[d.decision], elapsed_us=d.elapsed_us)
    if d.fault is not None:
        msg.fault = _FAULTS[d.fault]
    action: Any = d.action
    if d.decision is Decision.DOUBLE_NIL:
        msg.double_nil = (
            bot_pb2.DOUBLE_NIL_CHOICE_DECLARE if action else bot_pb2.DOUBLE_NIL_CHOICE_DECLINE
        )
    elif d.decision is Decision.DRAW:
        msg.draw = bot_pb2.DRAW_CHOICE_KEEP if action else bot_pb2.DRAW_CHOICE_REJECT
    elif d.decision is Decision.EXCHANGE:
        msg.exchange.cards.extend(card_to_pb(c) for c in action)
    elif d.decision is Decision.BID:
        msg.bid = int(action)
    else:
        msg.play.CopyFrom(card_to_pb(int(action)))
    return msg


def decision_from_pb(msg: pb.Decision) -> DecisionRecord:
    kind = _DECISIONS[msg.kind]
    action: Any
    if kind is Decision.DOUBLE_NIL:
        action = msg.double_nil == bot_pb2.DOUBLE_NIL_CHOICE_DECLARE
    elif kind is Decision.DRAW:
        action = msg.draw == bot_pb2.DRAW_CHOICE_KEEP
    elif kind is Decision.EXCHANGE:
        action = tuple(card_from_pb(c) for c in msg.exchange.cards)
    elif kind is Decision.BID:
        action = msg.bid
    else:
        action = card_from_pb(msg.play)
    return DecisionRecord(msg.seat, kind, action, msg.elapsed_us, _FAULT_KINDS.get(msg.fault))


def stored_match_to_pb(stored: StoredMatch) -> pb.GetMatchResponse:
    return pb.GetMatchResponse(
        match=match_to_pb(stored.summary, stored.result.rules),
        decisions=[decision_to_pb(d) for d in stored.result.decisions],
    )


def match_result_from_pb(response: pb.GetMatchResponse) -> MatchResult:
    """The referee's record of a match fetched from a server, for replaying it locally."""
    m = response.match
    return MatchResult(
        match_id=m.id,
        seed=m.seed,
        rules=ruleset_from_pb(m.rules),
        engine_version=m.engine_version,
        players=(
            f"{m.seats[0].bot}@{m.seats[0].version}",
            f"{m.seats[1].bot}@{m.seats[1].version}",
        ),
        winner=m.winner if m.HasField("winner") else None,
        scores=(m.seats[0].score, m.seats[1].score),
        hands_played=m.hands_played,
        termination=Termination(termination_from_pb(m.termination)),
        faults=(m.seats[0].faults, m.seats[1].faults),
        detail=m.detail,
        decisions=tuple(decision_from_pb(d) for d in response.decisions),
        started_at=from_timestamp(m.started_at),
        finished_at=from_timestamp(m.finished_at),
    )


# -- leaderboard -------------------------------------------------------------------------------


def leaderboard_row_to_pb(row: LeaderboardRow) -> pb.LeaderboardEntry:
    """A row of the arena's leaderboard or of a tournament's standings."""
    return pb.LeaderboardEntry(
        rank=row.rank,
        bot=row.bot,
        version=row.version,
        mu=row.mu,
        sigma=row.sigma,
        score=row.score,
        matches=row.matches,
        wins=row.wins,
        losses=row.losses,
        draws=row.draws,
        faults=row.faults,
        mu_low=row.mu_low,
        mu_high=row.mu_high,
    )


def leaderboard_row_from_pb(entry: pb.LeaderboardEntry) -> LeaderboardRow:
    return LeaderboardRow(
        rank=entry.rank,
        bot=entry.bot,
        version=entry.version,
        mu=entry.mu,
        sigma=entry.sigma,
        score=entry.score,
        matches=entry.matches,
        wins=entry.wins,
        losses=entry.losses,
        draws=entry.draws,
        faults=entry.faults,
    )


def ladder_status_to_pb(
    status: dict[str, Any],
    pause_reason: Callable[[str, str], str],
    *,
    flags: bool = False,
) -> pb.GetLadderStatusResponse:
    """The ladder's published status (``arena.ladder``) as the service shows it to a caller: a
    pause's reason through ``pause_reason(bot, reason)`` (``arena.visibility``: the bot's own
    output for its owner only); the collusion flags only with ``flags`` (an admin: they are
    for the organiser)."""
    return pb.GetLadderStatusResponse(
        per_owner=int(status.get("per_owner") or 0),
        reveal_opponents=not status.get("anonymous_opponents", True),
        waiting=[
            pb.LadderWaiting(bot=w["bot"], version_id=int(w["version_id"]), why=str(w["why"]))
            for w in status.get("waiting", [])
        ],
        flags=[
            pb.CollusionFlag(
                bot=f["bot"],
                opponent=f["opponent"],
                forfeits_against=int(f["forfeits_against"]),
                matches_against=int(f["matches_against"]),
                forfeits_others=int(f["forfeits_others"]),
                matches_others=int(f["matches_others"]),
                p_value=float(f["p_value"]),
                why=str(f["why"]),
            )
            for f in (status.get("flags", []) if flags else [])
        ],
        updated_at=str(status.get("updated_at", "")),
        pairs_scheduled=int(status.get("pairs_scheduled", 0)),
        matches_last_24h=int(status.get("matches_last_24h", 0)),
        daily_budget=int(status.get("daily_budget") or 0),
        playing=[
            pb.LadderPair(
                tournament_id=int(p["tournament_id"]),
                bots=list(p["bots"]),
                why=str(p.get("why", "")),
            )
            for p in status.get("playing", [])
        ],
        entrants=[
            pb.LadderEntrant(
                bot=e["bot"],
                version_id=int(e["version_id"]),
                mu=float(e["mu"]),
                sigma=float(e["sigma"]),
                pairs=int(e["pairs"]),
                house=bool(e.get("house", False)),
            )
            for e in status.get("entrants", [])
        ],
        paused=[
            pb.LadderPause(
                bot=p["bot"],
                version_id=int(p["version_id"]),
                reason=pause_reason(str(p["bot"]), str(p.get("reason", ""))),
                at=str(p.get("at", "")),
            )
            for p in status.get("paused", [])
        ],
        idle_reason=str(status.get("idle_reason") or ""),
    )


def ladder_status_from_pb(msg: pb.GetLadderStatusResponse) -> dict[str, Any]:
    """The same dict ``arena ladder status`` prints locally, from the service's answer."""
    return {
        "updated_at": msg.updated_at,
        "pairs_scheduled": msg.pairs_scheduled,
        "matches_last_24h": msg.matches_last_24h,
        "daily_budget": msg.daily_budget or None,
        "playing": [
            {"tournament_id": p.tournament_id, "bots": list(p.bots), "why": p.why}
            for p in msg.playing
        ],
        "entrants": [
            {
                "bot": e.bot,
                "version_id": e.version_id,
                "mu": e.mu,
                "sigma": e.sigma,
                "pairs": e.pairs,
                "house": e.house,
            }
            for e in msg.entrants
        ],
        "paused": [
            {"bot": p.bot, "version_id": p.version_id, "reason": p.reason, "at": p.at}
            for p in msg.paused
        ],
        "per_owner": msg.per_owner or None,
        "anonymous_opponents": not msg.reveal_opponents,
        "waiting": [{"bot": w.bot, "version_id": w.version_id, "why": w.why} for w in msg.waiting],
        "flags": [
            {
                "bot": f.bot,
                "opponent": f.opponent,
                "forfeits_against": f.forfeits_against,
                "matches_against": f.matches_against,
                "forfeits_others": f.forfeits_others,
                "matches_others": f.matches_others,
                "p_value": f.p_value,
                "why": f.why,
            }
            for f in msg.flags
        ],
        "idle_reason": msg.idle_reason or None,
    }
