"""Is v2 better? A comparison (``arena compare``) started from the bot page and watched live.

The owner of a bot (or an admin) picks an opponent they may pit and the SPRT's bounds; the
comparison is the service's: ``TournamentManager.start`` with a ``Comparison`` (the same checks,
policy and quotas as ``StartTournament``), played by the ``arena serve`` process with its
runner, lanes and sandbox. Its page (``/compare/ID``) shows the LLR against its bounds and the
Elo interval after every counted pair; it follows the tournament's event stream (capped like
every stream, ``stream_limits``) and reads ``/api/compare/ID`` on each update, or polls that
when the stream is refused. The figures are of complete pairs in schedule order
(``arena.tournament.compare``): a pair is counted once both its seatings are played, so they
never tell anything of a sealed deal (``arena.visibility``); the matches themselves are on the
tournament's page, read through the visibility policy. Only the owner who started it (or an
admin) cancels it."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import anyio.to_thread
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from arena._gen.arena.v1 import arena_pb2 as pb
from arena.errors import ArenaError
from arena.service.auth import Caller
from arena.service.permissions import PolicyError, QuotaError
from arena.service.tournaments import OWNER_KEY
from arena.stats import DEFAULT_SPRT
from arena.store import NotFoundError, Store, TournamentStatus
from arena.store.accounts import AccountInfo
from arena.tournament import load_config
from arena.tournament.compare import DEFAULT_MAX_PAIRS_SPRT, CompareState
from arena.tournament.entrants import sample_bot_dirs, sample_bot_unavailable
from arena.tournament.runner import comparison_state
from arena.web.routes import Site


def _finite(value: Any) -> Any:
    """JSON has no infinity: an Elo of a score of 0 or 1 (a clean sweep so far) is null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def _account(arena: Site, request: Request) -> AccountInfo | None:
    session = arena.sessions.current(request)
    return None if session is None else arena.store.account_of_token(session.token_id)


def opponents(store: Store, account: AccountInfo, bot: str) -> list[str]:
    """What the account may pit its bot against: its own bots' versions (this bot's earlier
    ones too) and the sample bots that run here; an admin, any bot's latest version."""
    out: list[str] = []
    admin = account.role == "admin"
    for b in store.list_bots():
        if b.name in sample_bot_dirs():
            continue
        if b.owner_token_id == account.token_id:
            out.extend(f"{b.name}@{v.version_label}" for v in reversed(b.versions))
        elif admin and b.versions:
            out.append(f"{b.name}@{b.versions[-1].version_label}")
    samples = [n for n, p in sample_bot_dirs().items() if sample_bot_unavailable(p) is None]
    return out + samples


def compare_form(arena: Site, request: Request, bot: str) -> dict[str, Any] | None:
    """The bot page's "Is v2 better?" form, for its owner or an admin (None for anyone else,
    or where no service runs comparisons)."""
    if arena.config.tournaments is None:
        return None
    account = _account(arena, request)
    if account is None:
        return None
    found = next((b for b in arena.store.list_bots() if b.name == bot), None)
    if found is None or not found.versions:
        return None
    if found.owner_token_id != account.token_id and account.role != "admin":
        return None
    versions = [v.version_label for v in reversed(found.versions)]
    choices = [o for o in opponents(arena.store, account, bot) if o != f"{bot}@{versions[0]}"]
    return {
        "versions": versions,
        "opponents": choices,
        "elo0": DEFAULT_SPRT["elo0"],
        "elo1": DEFAULT_SPRT["elo1"],
        "max_pairs": DEFAULT_MAX_PAIRS_SPRT,
    }


def _number(form: dict[str, str], key: str, default: float) -> float:
    raw = form.get(key, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise HTTPException(400, f"{key} must be a number, not {raw[:40]!r}") from None
    if not math.isfinite(value):
        raise HTTPException(400, f"{key} must be a finite number, not {raw[:40]!r}")
    return value


def verdict(state: CompareState, status: str, names: tuple[str, str]) -> str | None:
    """The comparison's outcome in one line, once it has one."""
    a, b = names
    sp = state.sprt
    if state.decision == "H1" and sp is not None:
        return f"H1 accepted after {state.pairs} pairs: {a} is at least {sp.elo1:g} Elo stronger than {b}"  # noqa: E501
    if state.decision == "H0" and sp is not None:
        return f"H0 accepted after {state.pairs} pairs: {a} is at most {sp.elo0:g} Elo stronger than {b}"  # noqa: E501
    if state.pairs >= state.max_pairs:
        return f"undecided after {state.pairs} pairs (the cap)"
    if status == TournamentStatus.CANCELLED.value:
        return f"cancelled after {state.pairs} pairs, undecided"
    return None


def _elo(value: float) -> str:
    if math.isnan(value):
        return "?"
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{value:+.1f}"


def elo_line(state: CompareState) -> str:
    """The Elo of A over B with its 95 % interval, as the page's script writes it too."""
    e = state.estimate
    if state.pairs == 0:
        return "no pair counted yet"
    return f"Elo {_elo(e.elo)} [{_elo(e.elo_low)}, {_elo(e.elo_high)}] (95 %)"


def llr_line(state: CompareState) -> str:
    s = state.status
    if s is None:
        return ""
    return f"LLR {s.llr:+.2f} between {s.lower:+.2f} (H0) and {s.upper:+.2f} (H1)"


def compare_routes(arena: Site, timed: Callable[..., Any]) -> list[Route]:
    store = arena.store

    def manager() -> Any:
        found = arena.config.tournaments
        if found is None:
            raise HTTPException(503, "comparisons are not run here: `arena serve --web` runs them")
        return found

    async def start(request: Request) -> Response:
        form = await arena.sessions.read_form(request)  # 403 without its CSRF token
        name = request.path_params["name"]

        def run() -> Response:
            account = _account(arena, request)
            if account is None:
                raise HTTPException(401, "sign in first (/login)")
            tournaments = manager()
            bot = next((b for b in store.list_bots() if b.name == name), None)
            if bot is None or not bot.versions:
                raise HTTPException(404, f"unknown bot {name!r}")
            if bot.owner_token_id != account.token_id and account.role != "admin":
                raise HTTPException(
                    403, f"bot {name!r} is not yours: only its owner starts a comparison of it"
                )
            version = form.get("version", "").strip() or bot.versions[-1].version_label
            if version not in {v.version_label for v in bot.versions}:
                raise HTTPException(400, f"bot {name!r} has no version {version[:64]!r}")
            opponent = form.get("opponent", "").strip()
            if not opponent:
                raise HTTPException(400, "choose an opponent (B) for the comparison")
            if opponent in (name, f"{name}@{version}"):
                raise HTTPException(400, f"{name}@{version} against itself tells nothing")
            max_pairs = _number(form, "max_pairs", DEFAULT_MAX_PAIRS_SPRT)
            if max_pairs != int(max_pairs) or max_pairs < 1:
                raise HTTPException(
                    400, f"max_pairs must be a whole number >= 1, not {max_pairs:g}"
                )
            ask = pb.StartTournamentRequest(
                bots=[f"{name}@{version}", opponent],
                compare=pb.Comparison(
                    elo0=_number(form, "elo0", DEFAULT_SPRT["elo0"]),
                    elo1=_number(form, "elo1", DEFAULT_SPRT["elo1"]),
                    max_pairs=min(int(max_pairs), 2**31 - 1),
                ),
            )
            caller = Caller(token_id=account.token_id, name=account.name, role=account.role)
            try:
                tid = tournaments.start(ask, caller)
            except PolicyError as exc:
                raise HTTPException(403, str(exc)) from None
            except QuotaError as exc:
                raise HTTPException(429, str(exc)) from None
            except ArenaError as exc:
                raise HTTPException(400, str(exc).splitlines()[0]) from None
            return RedirectResponse(f"/compare/{tid}", status_code=303)

        response: Response = await anyio.to_thread.run_sync(run)
        return response

    def data(tid: int) -> dict[str, Any]:
        """The comparison as anyone may see it: who, the test, its figures, its state."""
        try:
            info, config = load_config(store, tid)
        except NotFoundError:
            raise HTTPException(404, f"no comparison with id {tid}") from None
        if config.compare is None:
            raise HTTPException(404, f"tournament {tid} is not a comparison")
        state = comparison_state(store, tid)
        tournaments = arena.config.tournaments
        running = (tournaments is not None and tournaments.is_running(tid)) or (
            store.tournament_player_active(tid)
        )
        status = info.status.value
        if tournaments is not None and tournaments.is_cancelled(tid):
            # Its last matches are ending: it is never resumed, whatever they do.
            status, running = TournamentStatus.CANCELLED.value, False
        elif status == TournamentStatus.RUNNING.value and not running:
            status = "interrupted"
        a, b = config.entrants
        names = (f"{a.name}@{a.version}", f"{b.name}@{b.version}")
        owner = info.config.get(OWNER_KEY)
        return {
            "tournament": tid,
            "status": status,
            "running": bool(running),
            "a": names[0],
            "b": names[1],
            "owner_token_id": owner if isinstance(owner, int) else None,
            **state.to_dict(),
            "verdict": verdict(state, status, names),
            "elo_line": elo_line(state),
            "llr_line": llr_line(state),
        }

    def path_id(request: Request) -> int:
        raw = request.path_params["tid"]
        if not raw.isdigit() or not 0 < int(raw) < 2**62:
            raise HTTPException(404, f"no comparison with id {raw[:40]!r}")
        return int(raw)

    def page(request: Request) -> Response:
        tid = path_id(request)
        c = data(tid)
        account = _account(arena, request)
        may_cancel = (
            account is not None
            and c["running"]
            and (account.role == "admin" or account.token_id == c["owner_token_id"])
        )
        c.pop("owner_token_id")
        return arena.render(
            request, "compare.html", c=c, may_cancel=may_cancel,
            title=f"Comparison {tid} · Spades Arena",
        )  # fmt: skip

    def api(request: Request) -> Response:
        c = data(path_id(request))
        c.pop("owner_token_id")
        return JSONResponse(_finite(c), headers={"cache-control": "no-store"})

    async def cancel(request: Request) -> Response:
        await arena.sessions.read_form(request)
        tid = path_id(request)

        def run() -> Response:
            account = _account(arena, request)
            if account is None:
                raise HTTPException(401, "sign in first (/login)")
            data(tid)  # 404 for what is not a comparison
            caller = Caller(token_id=account.token_id, name=account.name, role=account.role)
            try:
                manager().cancel(tid, caller)
            except PolicyError as exc:
                raise HTTPException(403, str(exc)) from None
            except ArenaError as exc:
                raise HTTPException(409, str(exc)) from None
            return RedirectResponse(f"/compare/{tid}", status_code=303)

        response: Response = await anyio.to_thread.run_sync(run)
        return response

    return [
        Route("/bots/{name:str}/compare", start, methods=["POST"]),
        Route("/compare/{tid}", timed(page), methods=["GET"]),
        Route("/compare/{tid}/cancel", cancel, methods=["POST"]),
        Route("/api/compare/{tid}", timed(api), methods=["GET"]),
    ]
