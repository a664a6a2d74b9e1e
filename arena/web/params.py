"""What every route module shares: query parameters checked into a 400 that says what was
expected, paging, the handler timer (``Server-Timing``) and gzip-kept JSON."""

from __future__ import annotations

import gzip
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import anyio.to_thread
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from arena.web.views import Page

SERVER_TIMING = "server-timing"
MAX_PAGE_ROWS = 1000
"""The most rows one page of a list (or API answer) holds: more is paged."""
T = TypeVar("T")


class BadRequest(HTTPException):
    def __init__(self, detail: str) -> None:
        super().__init__(400, detail)


def int_param(
    request: Request, name: str, default: int | None, lo: int = 0, hi: int = 2**62
) -> int | None:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw, 10)
    except ValueError:
        raise BadRequest(f"query parameter {name} must be a whole number, got {raw!r}") from None
    if not lo <= value <= hi:
        raise BadRequest(f"query parameter {name} must be between {lo} and {hi}, got {value}")
    return value


def choice_param(request: Request, name: str, choices: tuple[str, ...], default: str) -> str:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    if raw not in choices:
        raise BadRequest(f"query parameter {name} must be one of {', '.join(choices)}, got {raw!r}")
    return raw


def path_int(request: Request, name: str) -> int:
    raw = request.path_params[name]
    try:
        value = int(raw, 10)
    except ValueError:
        raise HTTPException(404, f"no tournament with id {raw!r}") from None
    if not 0 < value < 2**62:
        raise HTTPException(404, f"no tournament with id {raw!r}")
    return value


def page_params(request: Request, default_per_page: int) -> tuple[int, int]:
    """(page, per_page) of a paged list: page 1 of ``default_per_page`` rows unless the query
    says otherwise (``per_page`` at most ``MAX_PAGE_ROWS``)."""
    page = int_param(request, "page", 1, 1, 10**6) or 1
    per_page = (
        int_param(request, "per_page", default_per_page, 1, MAX_PAGE_ROWS) or default_per_page
    )
    return page, per_page


def paged(items: Sequence[T], page: int, per_page: int) -> tuple[Sequence[T], Page]:
    """The items of page ``page``; a page past the last is a 400 that names the last."""
    total = len(items)
    pages = max(1, -(-total // per_page))
    if page > pages:
        raise BadRequest(f"query parameter page must be at most {pages}, got {page}")
    return items[(page - 1) * per_page : page * per_page], Page(page, per_page, pages, total)


def timed(handler: Callable[..., Any]) -> Callable[[Request], Any]:
    """Run the (blocking) handler in a worker thread and report its time in Server-Timing:
    ``app`` the wall time, ``cpu`` the CPU time of the thread (what it cost, without the wait
    for a core on a busy machine)."""

    def run(request: Request) -> Response:
        c0, t0 = time.thread_time(), time.perf_counter()
        response: Response = handler(request)
        wall = (time.perf_counter() - t0) * 1000
        cpu = (time.thread_time() - c0) * 1000
        response.headers[SERVER_TIMING] = f"app;dur={wall:.2f}, cpu;dur={cpu:.2f}"
        return response

    async def endpoint(request: Request) -> Response:
        return await anyio.to_thread.run_sync(run, request)

    return endpoint


def gzipped(request: Request, body: bytes, headers: dict[str, str] | None = None) -> Response:
    """Gzip-compressed JSON as it is, or decompressed for a client that does not take gzip."""
    extra = {"vary": "accept-encoding", **(headers or {})}
    if "gzip" in request.headers.get("accept-encoding", ""):
        return Response(
            body, media_type="application/json", headers={"content-encoding": "gzip", **extra}
        )
    return Response(gzip.decompress(body), media_type="application/json", headers=extra)
