"""A small bot on raw gRPC for the runtime's tests, with a misbehaviour chosen by $RUNTIME_MODE.

It reports what the runtime gave it (its limits, address, environment) on stderr, so the tests
can check them in its log. The ``tests/bots/runtime_*`` manifests pick the mode:

  serve        serve health and BotService (StartMatch, Bid) until SIGTERM (the default)
  exit         print a reason and exit at once with code 3
  never_ready  print a line and sleep, never listening
  no_health    serve BotService but not the health checking service
  fork         fork a child that stays in the group and ignores SIGTERM, and a grandchild that
               leaves the group (setsid, double fork) and ignores SIGTERM; then serve
  flood        write $RUNTIME_FLOOD_MB MiB to stderr, then "flood done", while serving;
               with RUNTIME_FLOOD_MB=forever, never stop writing
  memory       try to allocate $RUNTIME_ALLOC_MB MiB, report the outcome, then serve
  cpu          serve while a thread burns CPU (for the CPU time limit)

With $RUNTIME_IGNORE_TERM=1 the main process ignores SIGTERM too (in every mode).

``--address ADDR`` overrides $ARENA_BOT_ADDRESS; a TCP address with port 0 picks a free port and
prints ``listening on HOST:PORT`` on stdout.
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import sys
import threading
import time
from concurrent import futures

import grpc
from grpc_health.v1 import health, health_pb2_grpc

from arena._gen.spades.v1 import bot_pb2 as pb
from arena._gen.spades.v1 import bot_pb2_grpc as pb_grpc

MODE = os.environ.get("RUNTIME_MODE", "serve")


class EchoBot(pb_grpc.BotServiceServicer):
    """Answers StartMatch and bids the smallest legal bid; other RPCs are UNIMPLEMENTED."""

    def StartMatch(self, request: pb.StartMatchRequest, context: object) -> pb.StartMatchResponse:
        return pb.StartMatchResponse()

    def Bid(self, request: pb.BidRequest, context: object) -> pb.BidResponse:
        return pb.BidResponse(tricks=min(request.legal_bids) if request.legal_bids else 0)


def report_limits() -> None:
    def show(name: str) -> str:
        soft, _hard = resource.getrlimit(getattr(resource, name))
        return "unlimited" if soft == resource.RLIM_INFINITY else str(soft)

    names = ("RLIMIT_DATA", "RLIMIT_AS", "RLIMIT_CORE", "RLIMIT_CPU", "RLIMIT_NPROC")
    print("limits " + " ".join(f"{n}={show(n)}" for n in names), file=sys.stderr)
    print(f"pid {os.getpid()} pgid {os.getpgrp()} sid {os.getsid(0)}", file=sys.stderr)
    print(f"env ARENA_BOT_NAME={os.environ.get('ARENA_BOT_NAME')}", file=sys.stderr)
    print(f"env ARENA_BOT_ADDRESS={os.environ.get('ARENA_BOT_ADDRESS')}", file=sys.stderr)
    print(f"env RUNTIME_SECRET={os.environ.get('RUNTIME_SECRET')}", file=sys.stderr)
    print(f"env ARENA_TEST_SECRET={os.environ.get('ARENA_TEST_SECRET')}", file=sys.stderr)
    print(f"env TMPDIR={os.environ.get('TMPDIR')}", file=sys.stderr)
    print(f"env GRPC_EXPERIMENTS={os.environ.get('GRPC_EXPERIMENTS')!r}", file=sys.stderr)


def stubborn_sleep() -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    while True:
        time.sleep(60)


def fork_children() -> None:
    """One child in the group that ignores SIGTERM, one grandchild that escapes the group."""
    child = os.fork()
    if child == 0:
        stubborn_sleep()
    print(f"child {child}", file=sys.stderr, flush=True)
    read_fd, write_fd = os.pipe()
    first = os.fork()
    if first == 0:
        os.setsid()
        escaped = os.fork()
        if escaped == 0:
            os.close(read_fd)
            os.close(write_fd)
            stubborn_sleep()
        os.write(write_fd, f"{escaped}\n".encode())
        os._exit(0)
    os.waitpid(first, 0)
    escaped_pid = int(os.read(read_fd, 64))
    print(f"escaped {escaped_pid}", file=sys.stderr, flush=True)


def flood(megabytes: float) -> None:
    block = ("x" * 1023 + "\n").encode() * 1024
    written = 0
    while written < megabytes:
        sys.stderr.buffer.write(block)
        written += 1
    sys.stderr.buffer.flush()
    print("flood done", file=sys.stderr, flush=True)


def try_allocation(megabytes: int) -> None:
    try:
        block = bytearray(megabytes << 20)
        block[-1] = 1
    except MemoryError:
        print(f"allocation of {megabytes} MiB failed: MemoryError", file=sys.stderr, flush=True)
    else:
        print(f"allocation of {megabytes} MiB succeeded", file=sys.stderr, flush=True)
        del block


def burn() -> None:
    x = 0
    while True:
        x += 1


def serve(address: str, *, with_health: bool = True) -> None:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    pb_grpc.add_BotServiceServicer_to_server(EchoBot(), server)
    if with_health:
        health_pb2_grpc.add_HealthServicer_to_server(health.HealthServicer(), server)
    port = server.add_insecure_port(address)
    server.start()
    if not address.startswith("unix:"):
        host = address.rsplit(":", 1)[0]
        print(f"listening on {host}:{port}", flush=True)
    stop = threading.Event()
    if os.environ.get("RUNTIME_IGNORE_TERM") == "1":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    else:
        signal.signal(signal.SIGTERM, lambda _sig, _frame: stop.set())
    stop.wait()
    server.stop(0.5).wait()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", default=os.environ.get("ARENA_BOT_ADDRESS"))
    args = parser.parse_args()
    report_limits()
    print(f"address argument {args.address}", file=sys.stderr, flush=True)
    if MODE == "exit":
        print("cannot start: the model file is missing", file=sys.stderr)
        sys.exit(3)
    if MODE == "never_ready":
        print("loading a very large model…", file=sys.stderr, flush=True)
        time.sleep(3600)
    if MODE == "fork":
        fork_children()
    if MODE == "flood":
        amount = os.environ.get("RUNTIME_FLOOD_MB", "16")
        megabytes = float("inf") if amount == "forever" else int(amount)
        threading.Thread(target=flood, args=(megabytes,), daemon=True).start()
    if MODE == "memory":
        try_allocation(int(os.environ.get("RUNTIME_ALLOC_MB", "512")))
    if MODE == "cpu":
        threading.Thread(target=burn, daemon=True).start()
    serve(args.address, with_health=MODE != "no_health")


if __name__ == "__main__":
    main()
