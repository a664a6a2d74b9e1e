"""How fast people's seats are served: many simulated people playing at once over HTTP.

A web server runs in a child process (``python -m arena.bench.humanplay serve DB TABLES``) with
the `random` sample bot as the opponent; each simulated person (an asyncio task, no browser)
opens a table as the lobby form does and answers every request after a think time (``think_ms``,
uniform between 0 and twice it; 0: at once), as the page does (a form POST with the CSRF token,
whose response brings the next request when it comes within a short wait, else a long poll).
The figure is the time from sending an answer to receiving the next request: the POST, the
referee, the bot's turn, and the long poll when there is one (the think time is not in it).

Beside them, in a process of its own, the referee plays bot matches (`random` against `random`,
one hand each, one after another, two long-lived bot processes), as a tournament worker does:
their rate while the people play, against the rate before and after them (same run), says
whether the people's tables slow the bots' matches.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

__all__ = ["describe", "measure_play"]

SAMPLE_RANDOM = Path(__file__).resolve().parents[2] / "sample_bots" / "random"


def _answer(req: dict[str, Any]) -> Any:
    kind = req["kind"]
    if kind == "draw":
        return "keep"
    if kind == "double_nil":
        return "decline"
    if kind == "exchange":
        return []
    if kind == "bid":
        return 2 if 2 in req["legal_bids"] else req["legal_bids"][0]
    return req["legal_cards"][0]


class _Http:
    """A minimal HTTP/1.1 client on one kept-alive connection, with cookies: what a browser
    tab does, at a cost the figures can ignore. (httpx's async client costs the benchmark's own
    event loop about a millisecond a request in a failed import, and 0.3 s a client in loading
    the CA bundle: at 200 people the clients, not the server, were measured.)"""

    def __init__(self, url: str) -> None:
        host, _, port = url.removeprefix("http://").rstrip("/").partition(":")
        self.host, self.port = host, int(port or 80)
        self.cookies: dict[str, str] = {}
        self._streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def close(self) -> None:
        if self._streams is not None:
            self._streams[1].close()
            self._streams = None

    async def request(
        self, method: str, path: str, form: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        for attempt in (0, 1):
            if self._streams is None:
                self._streams = await asyncio.open_connection(self.host, self.port)
            reader, writer = self._streams
            body = urlencode(form).encode() if form is not None else b""
            head = [f"{method} {path} HTTP/1.1", f"host: {self.host}:{self.port}"]
            if self.cookies:
                head.append("cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items()))
            if form is not None:
                head += ["content-type: application/x-www-form-urlencoded",
                         f"content-length: {len(body)}"]  # fmt: skip
            writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
            try:
                return await self._response(reader)
            except (ConnectionError, asyncio.IncompleteReadError):
                await self.close()  # the server closed a kept-alive connection: once more
                if attempt:
                    raise
        raise AssertionError("unreachable")

    async def _response(self, reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes]:
        status_line = await reader.readuntil(b"\r\n")
        status = int(status_line.split()[1])
        headers: dict[str, str] = {}
        while (line := await reader.readuntil(b"\r\n")) != b"\r\n":
            name, _, value = line.decode("latin-1").partition(":")
            name, value = name.strip().lower(), value.strip()
            if name == "set-cookie":
                key, _, rest = value.partition("=")
                self.cookies[key] = rest.split(";", 1)[0]
            headers[name] = value
        if headers.get("transfer-encoding") == "chunked":
            body = b""
            while size := int((await reader.readuntil(b"\r\n")).split(b";")[0], 16):
                body += (await reader.readexactly(size + 2))[:-2]
            await reader.readuntil(b"\r\n")
        else:
            body = await reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("connection") == "close":
            await self.close()
        return status, headers, body


async def _person(
    url: str, latencies: list[float], rules: str, think_ms: float = 0.0, seed: int = 0
) -> str:
    http = _Http(url)
    try:
        return await _play_one(http, latencies, rules, think_ms, seed)
    finally:
        await http.close()


async def _play_one(
    http: _Http, latencies: list[float], rules: str, think_ms: float, seed: int
) -> str:
    status, _, page = await http.request("GET", "/play")
    found = re.search(r'name="csrf" value="([^"]+)"', page.decode())
    if found is None:
        raise RuntimeError(f"the lobby has no form: HTTP {status}")
    csrf = found.group(1)
    form = {"csrf": csrf, "name": "bench", "opponent": "random", "rules": rules,
            "clock": "60", "seat": "0"}  # fmt: skip
    status, headers, page = await http.request("POST", "/play", form)
    if status != 303:
        raise RuntimeError(f"no table: HTTP {status} {page[:200]!r}")
    table = headers["location"].rsplit("/", 1)[1]
    version, last_seq, sent_at = -1, 0, None
    rng = random.Random(seed)
    state: dict[str, Any] | None = None
    while True:
        if state is None:
            status, _, page = await http.request("GET", f"/api/play/{table}?since={version}")
            state = json.loads(page)
        version = state["version"]
        if state["recorded"] or state["error"]:
            return str(state["error"] or state["end"]["termination"])
        req = state["request"]
        state = None
        if req is None or req["seq"] == last_seq:
            continue
        if sent_at is not None:
            latencies.append((time.perf_counter() - sent_at) * 1000)
        last_seq = req["seq"]
        if think_ms > 0:
            await asyncio.sleep(rng.uniform(0, 2 * think_ms) / 1000)
        sent_at = time.perf_counter()
        answer = {"csrf": csrf, "seq": str(req["seq"]), "answer": json.dumps(_answer(req))}
        status, _, page = await http.request("POST", f"/api/play/{table}/answer", answer)
        if status != 200:
            raise RuntimeError(f"answer refused: HTTP {status} {page[:200]!r}")
        # The answer's response is the state after it: the next request when it came in time,
        # else the page waits from that state's version for what comes next.
        state = json.loads(page)


async def _people(
    url: str, clients: int, rules: str, arrivals_per_s: float, think_ms: float = 0.0
) -> tuple[list[float], list[str]]:
    """People arrive ``arrivals_per_s`` a second, as people do (not all in one instant)."""
    latencies: list[float] = []

    async def arrive(i: int) -> str:
        await asyncio.sleep(i / arrivals_per_s)
        try:
            return await _person(url, latencies, rules, think_ms, seed=i)
        except Exception as exc:  # counted in the figures' ``ends``, not hidden
            return f"failed: {str(exc)[:80]}"

    ends = await asyncio.gather(*(arrive(i) for i in range(clients)))
    return latencies, list(ends)


def measure_play(
    clients: int = 200,
    rules: str = "one-hand",
    arrivals_per_s: float = 10.0,
    think_ms: float = 0.0,
    bot_window_s: float = 10.0,
) -> dict[str, Any]:
    """Play ``clients`` person matches at once against `random`; the latency figures, and the
    rate of bot matches played beside them against the rate ``bot_window_s`` before and after
    (0: no bot matches)."""
    with tempfile.TemporaryDirectory() as folder:
        db = str(Path(folder) / "play.db")
        proc = subprocess.Popen(
            [sys.executable, "-m", "arena.bench.humanplay", "serve", db, str(clients)],
            stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        bots = None
        try:
            assert proc.stdout is not None
            url = proc.stdout.readline().strip()
            if not url.startswith("http"):
                raise RuntimeError("the web server did not start")
            if bot_window_s > 0:
                bots = subprocess.Popen(
                    [sys.executable, "-m", "arena.bench.humanplay", "bots"],
                    stdout=subprocess.PIPE, text=True,
                )  # fmt: skip
                assert bots.stdout is not None
                if bots.stdout.readline().strip() != "ready":
                    raise RuntimeError("the bot matches did not start")
                time.sleep(bot_window_s)
            t_people = time.monotonic()
            t0 = time.perf_counter()
            cpu0 = _cpu_s(proc.pid)
            latencies, ends = asyncio.run(_people(url, clients, rules, arrivals_per_s, think_ms))
            wall = time.perf_counter() - t0
            cpu = _cpu_s(proc.pid) - cpu0
            t_done = time.monotonic()
            bot_rates = None
            if bots is not None:
                time.sleep(bot_window_s)
                t_end = time.monotonic()
                bots.send_signal(signal.SIGINT)
                out, _ = bots.communicate(timeout=60)
                ends_at = [float(x) for x in out.split()]
                bot_rates = _bot_rates(ends_at, t_people, t_done, t_end, bot_window_s)
        finally:
            for p in (bots, proc):
                if p is None or p.poll() is not None:
                    continue
                p.send_signal(signal.SIGINT)
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        assert proc.stdout is not None
        said = proc.stdout.read().split()
        processes = int(said[-1]) if said and said[-1].isdigit() else None
    ordered = sorted(latencies) or [float("nan")]
    return {
        "clients": clients,
        "rules": rules,
        "arrivals_per_s": arrivals_per_s,
        "think_ms": think_ms,
        "bot_matches": bot_rates,
        "opponent_processes": processes,
        "answers": len(ordered),
        "p50_ms": round(statistics.median(ordered), 2),
        "p95_ms": round(ordered[round(0.95 * (len(ordered) - 1))], 2),
        "max_ms": round(ordered[-1], 2),
        "wall_s": round(wall, 1),
        "server_cpu_s": round(cpu, 1),
        "ends": {e: ends.count(e) for e in sorted(set(ends))},
    }


def _bot_rates(
    ends_at: list[float], t_people: float, t_done: float, t_end: float, window_s: float
) -> dict[str, Any]:
    """Bot matches a second while the people played, against the window before and after."""

    def rate(a: float, b: float) -> float:
        return sum(1 for t in ends_at if a <= t < b) / (b - a) if b > a else float("nan")

    before = rate(t_people - window_s, t_people)
    after = rate(t_done, t_end)
    during = rate(t_people, t_done)
    alone = (before + after) / 2
    return {
        "alone_per_s": round(alone, 2), "with_people_per_s": round(during, 2),
        "before_per_s": round(before, 2), "after_per_s": round(after, 2),
        "ratio": round(during / alone, 3) if alone > 0 else None,
    }  # fmt: skip


def describe(r: dict[str, Any]) -> str:
    think = ", answering at once"
    if r.get("think_ms"):
        think = f", thinking {r['think_ms']:g} ms on average"
    text = (
        f"{r['clients']} people at once ({r['rules']}, arriving {r['arrivals_per_s']:g}/s"
        f"{think}), {r['answers']} answers: from an answer "
        f"to the next request p50 {r['p50_ms']} ms, p95 {r['p95_ms']} ms, max {r['max_ms']} ms; "
        f"{r['wall_s']} s wall, web server CPU {r['server_cpu_s']} s; "
        f"opponent processes started {r.get('opponent_processes')}; ends {r['ends']}"
    )
    b = r.get("bot_matches")
    if b:
        text += (
            f"; bot matches beside them {b['with_people_per_s']}/s against {b['alone_per_s']}/s "
            f"without (before {b['before_per_s']}, after {b['after_per_s']}): ratio {b['ratio']}"
        )
    return text


def _bot_matches() -> None:
    """Bot matches one after another until SIGINT, printing when each ended (monotonic s)."""
    from arena.referee import ClockConfig, play_match
    from arena.rules.ruleset import RuleSet
    from arena.runtime import load_manifest, start_bot
    from arena.tournament.workers import with_bot_seed

    stop = {"now": False}
    signal.signal(signal.SIGINT, lambda *_: stop.update(now=True))
    manifest = with_bot_seed(load_manifest(SAMPLE_RANDOM), 1)
    bots = [start_bot(manifest, sandbox="off") for _ in range(2)]
    print("ready", flush=True)
    ends: list[float] = []
    seed = 0
    try:
        while not stop["now"]:
            seed += 1
            play_match((bots[0], bots[1]), seed=seed, rules=RuleSet(max_hands=1),
                       clock=ClockConfig(move_time_ms=5000))  # fmt: skip
            ends.append(time.monotonic())
    finally:
        for b in bots:
            b.stop()
        print(" ".join(f"{t:.4f}" for t in ends), flush=True)


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _serve(db: str, tables: int) -> None:
    from arena.store import Store
    from arena.web import WebConfig, WebServer
    from arena.web.routes.play import PlayConfig

    store = Store.open(db)
    play = PlayConfig(opponents={"random": SAMPLE_RANDOM}, max_tables=tables, sandbox="off")
    server = WebServer(store, "127.0.0.1:0", WebConfig(play=play, max_streams=tables * 2))
    server.start()
    print(server.url.rstrip("/"), flush=True)
    try:
        signal.sigwait({signal.SIGINT, signal.SIGTERM})
    finally:
        server.stop()
        store.close()
    print(server.app.state.play_tables.pool.started, flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["serve"]:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        _serve(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1:2] == ["bots"]:
        _bot_matches()
    else:
        clients = int(sys.argv[1]) if len(sys.argv) > 1 else 200
        print(describe(measure_play(clients)))
