"""How fast people's seats are served: many simulated people playing at once over HTTP.

A web server runs in a child process (``python -m arena.humanplay.bench serve DB TABLES``) with
the `random` sample bot as the opponent; each simulated person (an asyncio task, no browser)
opens a table as the lobby form does and answers every request at once, as the page does (long
poll, then a form POST with the CSRF token). The figure is the time from sending an answer to
receiving the next request: the POST, the referee, the bot's turn and the long poll's wake-up.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

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


async def _person(url: str, latencies: list[float], rules: str) -> str:
    import httpx

    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        lobby = await http.get("/play")
        found = re.search(r'name="csrf" value="([^"]+)"', lobby.text)
        if found is None:
            raise RuntimeError(f"the lobby has no form: HTTP {lobby.status_code}")
        csrf = found.group(1)
        form = {"csrf": csrf, "name": "bench", "opponent": "random", "rules": rules,
                "clock": "60", "seat": "0"}  # fmt: skip
        opened = await http.post("/play", data=form)
        if opened.status_code != 303:
            raise RuntimeError(f"no table: HTTP {opened.status_code} {opened.text[:200]}")
        table = opened.headers["location"].rsplit("/", 1)[1]
        version, last_seq, sent_at = -1, 0, None
        while True:
            r = await http.get(f"/api/play/{table}", params={"since": version})
            state = r.json()
            version = state["version"]
            if state["recorded"] or state["error"]:
                return str(state["error"] or state["end"]["termination"])
            req = state["request"]
            if req is None or req["seq"] == last_seq:
                continue
            if sent_at is not None:
                latencies.append((time.perf_counter() - sent_at) * 1000)
            last_seq = req["seq"]
            sent_at = time.perf_counter()
            answer = {"csrf": csrf, "seq": str(req["seq"]), "answer": json.dumps(_answer(req))}
            posted = await http.post(f"/api/play/{table}/answer", data=answer)
            if posted.status_code != 200:
                raise RuntimeError(f"answer refused: {posted.text[:200]}")


async def _people(
    url: str, clients: int, rules: str, arrivals_per_s: float
) -> tuple[list[float], list[str]]:
    """People arrive ``arrivals_per_s`` a second (each table starts a bot process: all at
    once would measure the machine's process start-up, not the seats)."""
    latencies: list[float] = []

    async def arrive(i: int) -> str:
        await asyncio.sleep(i / arrivals_per_s)
        try:
            return await _person(url, latencies, rules)
        except Exception as exc:  # counted in the figures' ``ends``, not hidden
            return f"failed: {str(exc)[:80]}"

    ends = await asyncio.gather(*(arrive(i) for i in range(clients)))
    return latencies, list(ends)


def measure_play(
    clients: int = 200, rules: str = "one-hand", arrivals_per_s: float = 10.0
) -> dict[str, Any]:
    """Play ``clients`` person matches at once against `random`; the latency figures."""
    with tempfile.TemporaryDirectory() as folder:
        db = str(Path(folder) / "play.db")
        proc = subprocess.Popen(
            [sys.executable, "-m", "arena.humanplay.bench", "serve", db, str(clients)],
            stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            assert proc.stdout is not None
            url = proc.stdout.readline().strip()
            if not url.startswith("http"):
                raise RuntimeError("the web server did not start")
            t0 = time.perf_counter()
            cpu0 = _cpu_s(proc.pid)
            latencies, ends = asyncio.run(_people(url, clients, rules, arrivals_per_s))
            wall = time.perf_counter() - t0
            cpu = _cpu_s(proc.pid) - cpu0
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    ordered = sorted(latencies) or [float("nan")]
    return {
        "clients": clients,
        "rules": rules,
        "arrivals_per_s": arrivals_per_s,
        "answers": len(ordered),
        "p50_ms": round(statistics.median(ordered), 2),
        "p95_ms": round(ordered[round(0.95 * (len(ordered) - 1))], 2),
        "max_ms": round(ordered[-1], 2),
        "wall_s": round(wall, 1),
        "server_cpu_s": round(cpu, 1),
        "ends": {e: ends.count(e) for e in sorted(set(ends))},
    }


def describe(r: dict[str, Any]) -> str:
    return (
        f"{r['clients']} people at once ({r['rules']}, arriving {r['arrivals_per_s']:g}/s), "
        f"{r['answers']} answers: from an answer "
        f"to the next request p50 {r['p50_ms']} ms, p95 {r['p95_ms']} ms, max {r['max_ms']} ms; "
        f"{r['wall_s']} s wall, web server CPU {r['server_cpu_s']} s; ends {r['ends']}"
    )


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


if __name__ == "__main__":
    if sys.argv[1:2] == ["serve"]:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        _serve(sys.argv[2], int(sys.argv[3]))
    else:
        clients = int(sys.argv[1]) if len(sys.argv) > 1 else 200
        print(describe(measure_play(clients)))
