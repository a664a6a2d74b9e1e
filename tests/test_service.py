"""The arena service for real: `arena serve` as a child process on a free port of 127.0.0.1 with a
SQLite file, called through the generated stub, the client module and the CLI.

Covered: health and reflection; submission (new version, same content, content-addressed files);
every kind of bad archive refused with INVALID_ARGUMENT and nothing written; tokens
(UNAUTHENTICATED, PERMISSION_DENIED, --auth-reads); TLS with a certificate made here; and the
CLI's --server mode for `bot submit` and `bot list`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from test_archive import BAD_ARCHIVES, TEST_LIMITS, make_tar

from arena._gen.arena.v1 import arena_pb2 as pb
from arena._gen.arena.v1 import arena_pb2_grpc as pb_grpc
from arena.runtime.archive import pack_directory
from arena.sandbox import probe
from arena.service.client import ArenaClient, RemoteError

ROOT = Path(__file__).resolve().parent.parent
RANDOM_BOT = ROOT / "sample_bots" / "random"
MIB = 1024 * 1024


# The server runs submitted bots in the sandbox where this host has one (as a real server
# would), and says it is insecure where it has none.
SANDBOX_ARGS = ("--sandbox", "on") if probe().sandbox else ("--insecure-no-sandbox",)


class ArenaProcess:
    """`arena serve` in a child process; its address is read from its first line of output."""

    def __init__(self, db: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.db = db
        self.lines: list[str] = []
        self._ready = threading.Event()
        self.address = ""
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "arena", "serve", "--listen", "127.0.0.1:0", "--db", str(db),
             *SANDBOX_ARGS, *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **(env or {})},
            cwd=db.parent,
        )  # fmt: skip
        threading.Thread(target=self._read, daemon=True).start()
        if not self._ready.wait(60) or not self.address:
            self.proc.kill()
            raise AssertionError("arena serve did not start:\n" + "".join(self.lines))

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)
            found = re.search(r"serving arena\.v1 on (\S+?)[;( ]", line)
            if found:
                self.address = found.group(1)
                self._ready.set()
        self._ready.set()

    @property
    def data_dir(self) -> Path:
        return self.db.with_name(self.db.stem + "-data")

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 90) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        return self.proc.wait(timeout)


def arena_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=300,
    )


def make_token(db: Path, name: str) -> str:
    result = arena_cli("token", "create", name, "--db", str(db))
    assert result.returncode == 0, result.stderr
    token = result.stdout.strip()
    assert token and "\n" not in token
    return token


def make_admin_token(db: Path, name: str) -> str:
    """An admin token (docs/service.md, who may do what): picks seeds, pits anyone's bots."""
    result = arena_cli("token", "create", name, "--admin", "--db", str(db))
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


LIMIT_ARGS = (
    "--max-archive-mb", str(TEST_LIMITS.max_archive_bytes / MIB),
    "--max-files", str(TEST_LIMITS.max_entries),
    "--max-unpacked-mb", str(TEST_LIMITS.max_unpacked_bytes / MIB),
)  # fmt: skip


@pytest.fixture(scope="module")
def arena(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ArenaProcess]:
    db = tmp_path_factory.mktemp("arena") / "arena.db"
    make_token(db, "alice")  # creates the database; the tokens are made per test below
    server = ArenaProcess(db, *LIMIT_ARGS)
    yield server
    assert server.stop() == 0, "".join(server.lines)


@pytest.fixture(scope="module")
def alice(arena: ArenaProcess) -> str:
    return make_token(arena.db, "alice-" + os.urandom(3).hex())


@pytest.fixture(scope="module")
def bob(arena: ArenaProcess) -> str:
    return make_token(arena.db, "bob")


def bot_copy(tmp_path: Path, name: str, extra: str = "") -> Path:
    """The random sample bot under another name (and different content with ``extra``)."""
    target = tmp_path / name
    shutil.copytree(RANDOM_BOT, target, ignore=shutil.ignore_patterns("__pycache__", "*.log"))
    manifest = target / "bot.toml"
    text = manifest.read_text()
    manifest.write_text(re.sub(r'(?m)^name = ".*"$', f'name = "{name}"', text))
    if extra:
        (target / "extra.txt").write_text(extra)
    return target


def bump_version(bot: Path, version: str) -> None:
    """Give the bot in ``bot`` another version label (new content needs one)."""
    manifest = bot / "bot.toml"
    manifest.write_text(
        re.sub(r'(?m)^version = ".*"$', f'version = "{version}"', manifest.read_text())
    )


def data_listing(arena: ArenaProcess) -> list[str]:
    bots = arena.data_dir / "bots"
    return sorted(p.name for p in bots.iterdir()) if bots.exists() else []


def stub(arena: ArenaProcess) -> tuple[grpc.Channel, pb_grpc.ArenaServiceStub]:
    channel = grpc.insecure_channel(arena.address)
    return channel, pb_grpc.ArenaServiceStub(channel)


def bearer(token: str) -> list[tuple[str, str]]:
    return [("authorization", f"Bearer {token}")]


# -- health and reflection ---------------------------------------------------------------------


def test_health_and_reflection(arena: ArenaProcess) -> None:
    from google.protobuf import descriptor_pool
    from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
        ProtoReflectionDescriptorDatabase,
    )

    with grpc.insecure_channel(arena.address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for service in ("", "arena.v1.ArenaService"):
            reply = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=10)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        reflection = ProtoReflectionDescriptorDatabase(channel)
        services = set(reflection.get_services())
        assert {"arena.v1.ArenaService", "grpc.health.v1.Health"} <= services
        # A generic client resolves the service and the messages it uses, across files.
        pool = descriptor_pool.DescriptorPool(reflection)
        service = pool.FindServiceByName("arena.v1.ArenaService")
        assert "SubmitBot" in {m.name for m in service.methods}
        watch = service.FindMethodByName("WatchTournament").output_type
        assert watch.fields_by_name["match"].message_type.full_name == "arena.v1.Match"
        rules = pool.FindMessageTypeByName("arena.v1.Match").fields_by_name["rules"]
        assert rules.message_type.full_name == "spades.v1.RuleSet"


def test_buf_curl_lists_and_calls_through_reflection(arena: ArenaProcess) -> None:
    buf = ROOT / "proto" / "node_modules" / ".bin" / "buf"
    if not buf.exists():
        pytest.skip("buf is not installed: run `make setup` (npm ci in proto/)")
    base = [str(buf), "curl", "--protocol", "grpc", "--http2-prior-knowledge"]
    listed = subprocess.run(
        [*base, "--list-methods", f"http://{arena.address}"], capture_output=True, text=True
    )
    assert listed.returncode == 0, listed.stderr
    assert "arena.v1.ArenaService/SubmitBot" in listed.stdout.split()
    called = subprocess.run(
        [*base, f"http://{arena.address}/arena.v1.ArenaService/ListBots"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert called.returncode == 0, called.stderr
    assert isinstance(json.loads(called.stdout), dict)


# -- submission --------------------------------------------------------------------------------


def test_submit_new_version_same_content_and_list(
    arena: ArenaProcess, alice: str, tmp_path: Path
) -> None:
    bot = bot_copy(tmp_path, "submitty")
    channel, service = stub(arena)
    with channel:
        first = service.SubmitBot(
            pb.SubmitBotRequest(archive=pack_directory(bot)), metadata=bearer(alice), timeout=30
        )
        assert first.created
        assert first.bot.name == "submitty"
        assert first.bot.owner.startswith("alice-")
        stored = arena.data_dir / "bots" / first.version.content_hash
        assert (stored / "bot.toml").read_text() == (bot / "bot.toml").read_text()
        assert (stored / "bot.py").read_bytes() == (bot / "bot.py").read_bytes()

        again = service.SubmitBot(
            pb.SubmitBotRequest(archive=pack_directory(bot)), metadata=bearer(alice), timeout=30
        )
        assert not again.created
        assert again.version.content_hash == first.version.content_hash

        (bot / "extra.txt").write_text("a change makes a new version")
        bump_version(bot, "1.1")  # a version label names one build
        second = service.SubmitBot(
            pb.SubmitBotRequest(archive=pack_directory(bot)), metadata=bearer(alice), timeout=30
        )
        assert second.created
        assert second.version.content_hash != first.version.content_hash
        assert (arena.data_dir / "bots" / second.version.content_hash / "extra.txt").exists()

        listed = {b.name: b for b in service.ListBots(pb.ListBotsRequest(), timeout=10).bots}
        assert listed["submitty"].latest_version.content_hash == second.version.content_hash
        got = service.GetBot(pb.GetBotRequest(name="submitty"), timeout=10).bot
        assert [v.content_hash for v in got.versions] == [
            first.version.content_hash,
            second.version.content_hash,
        ]
    assert not [n for n in data_listing(arena) if n.startswith(".incoming")]


def test_submit_under_another_name(arena: ArenaProcess, alice: str, tmp_path: Path) -> None:
    bot = bot_copy(tmp_path, "named-in-manifest", extra="renamed")
    with ArenaClient(arena.address, token=alice) as client:
        response = client.submit_bot(bot, name="renamed")
        assert response.bot.name == "renamed"
        assert "renamed" in {b.name for b in client.list_bots()}
        assert "named-in-manifest" not in {b.name for b in client.list_bots()}


def _bad_submissions() -> dict[str, tuple[bytes, str]]:
    cases = dict(BAD_ARCHIVES)

    def manifest(text: str) -> bytes:
        def add(tar: object) -> None:
            from test_archive import add_file

            add_file(tar, "bot.toml", text.encode())  # type: ignore[arg-type]
            add_file(tar, "bot.py", b"print()\n")  # type: ignore[arg-type]

        return make_tar(add)  # type: ignore[arg-type]

    cases["no manifest"] = (make_tar(lambda t: None), "bot.toml")
    cases["manifest not toml"] = (manifest("name = [unclosed"), "bot.toml")
    cases["manifest without command"] = (manifest('name = "x"\nversion = "1"\n'), "bot.toml")
    return cases


BAD_SUBMISSIONS = _bad_submissions()


@pytest.mark.parametrize("case", sorted(BAD_SUBMISSIONS))
def test_bad_archive_is_invalid_argument_and_nothing_is_written(
    arena: ArenaProcess, alice: str, case: str
) -> None:
    data, fragment = BAD_SUBMISSIONS[case]
    before_files = data_listing(arena)
    channel, service = stub(arena)
    with channel:
        before_bots = service.ListBots(pb.ListBotsRequest(), timeout=10).bots
        with pytest.raises(grpc.RpcError) as info:
            service.SubmitBot(
                pb.SubmitBotRequest(archive=data, name="evil"), metadata=bearer(alice), timeout=30
            )
        assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT, info.value.details()
        assert fragment in info.value.details()
        assert service.ListBots(pb.ListBotsRequest(), timeout=10).bots == before_bots
    assert data_listing(arena) == before_files
    assert not (arena.db.parent / "outside").exists()
    assert not Path("/etc/evil").exists()


def test_empty_archive_is_invalid_argument(arena: ArenaProcess, alice: str) -> None:
    with ArenaClient(arena.address, token=alice) as client, pytest.raises(RemoteError) as info:
        client.submit_archive(b"")
    assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert "empty" in str(info.value)


# -- tokens ------------------------------------------------------------------------------------


def test_writes_need_a_token(arena: ArenaProcess, tmp_path: Path) -> None:
    archive = pack_directory(bot_copy(tmp_path, "tokenless"))
    before = data_listing(arena)
    for token, fragment in [(None, "needs a token"), ("arena_wrong", "unknown token")]:
        with ArenaClient(arena.address, token=token) as client:
            with pytest.raises(RemoteError) as info:
                client.submit_archive(archive)
            assert info.value.code == grpc.StatusCode.UNAUTHENTICATED
            assert fragment in str(info.value)
            with pytest.raises(RemoteError) as info:
                client.start_tournament(["a", "b"])
            assert info.value.code == grpc.StatusCode.UNAUTHENTICATED
    channel, service = stub(arena)
    with channel, pytest.raises(grpc.RpcError) as raw:
        service.SubmitBot(
            pb.SubmitBotRequest(archive=archive), metadata=[("authorization", "Basic abc")]
        )
    assert raw.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert data_listing(arena) == before
    with ArenaClient(arena.address) as client:
        assert "tokenless" not in {b.name for b in client.list_bots()}


def test_reads_are_open_but_a_wrong_token_is_refused(arena: ArenaProcess) -> None:
    with ArenaClient(arena.address) as client:
        client.list_bots()
        client.leaderboard()
    with ArenaClient(arena.address, token="arena_wrong") as client, pytest.raises(RemoteError) as i:
        client.list_bots()
    assert i.value.code == grpc.StatusCode.UNAUTHENTICATED


def test_another_token_cannot_replace_a_bot(
    arena: ArenaProcess, alice: str, bob: str, tmp_path: Path
) -> None:
    bot = bot_copy(tmp_path, "alices-bot")
    with ArenaClient(arena.address, token=alice) as client:
        original = client.submit_bot(bot)
    (bot / "bot.py").write_text("# bob's takeover\n" + (bot / "bot.py").read_text())
    before = data_listing(arena)
    with ArenaClient(arena.address, token=bob) as client:
        with pytest.raises(RemoteError) as info:
            client.submit_bot(bot)
        assert info.value.code == grpc.StatusCode.PERMISSION_DENIED
        assert "belongs to another token" in str(info.value)
        versions = client.get_bot("alices-bot").versions
    assert [v.content_hash for v in versions] == [original.version.content_hash]
    assert data_listing(arena) == before
    bump_version(bot, "1.1")
    with ArenaClient(arena.address, token=alice) as client:
        assert client.submit_bot(bot).created  # the owner may


def test_unknown_names_are_not_found(arena: ArenaProcess) -> None:
    with ArenaClient(arena.address) as client:
        for call in (
            lambda: client.get_bot("nobody"),
            lambda: client.get_match("nomatch"),
            lambda: client.get_tournament(999999),
        ):
            with pytest.raises(RemoteError) as info:
                call()
            assert info.value.code == grpc.StatusCode.NOT_FOUND


def test_auth_reads_server_refuses_anonymous_reads(tmp_path: Path) -> None:
    db = tmp_path / "closed.db"
    token = make_token(db, "reader")
    server = ArenaProcess(db, "--auth-reads")
    try:
        with ArenaClient(server.address) as client, pytest.raises(RemoteError) as info:
            client.list_bots()
        assert info.value.code == grpc.StatusCode.UNAUTHENTICATED
        with ArenaClient(server.address, token=token) as client:
            assert client.list_bots() == []
        with grpc.insecure_channel(server.address) as channel:  # health stays open
            reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
    finally:
        assert server.stop() == 0


# -- TLS ---------------------------------------------------------------------------------------


def _self_signed(tmp_path: Path) -> tuple[Path, Path]:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
def test_tls(tmp_path: Path) -> None:
    cert, key = _self_signed(tmp_path)
    db = tmp_path / "tls.db"
    token = make_token(db, "tls")
    server = ArenaProcess(db, "--tls-cert", str(cert), "--tls-key", str(key))
    try:
        with ArenaClient(server.address, token=token, ca_file=cert) as client:
            response = client.submit_bot(bot_copy(tmp_path, "tls-bot"))
            assert response.created
            assert [b.name for b in client.list_bots()] == ["tls-bot"]
        with ArenaClient(server.address, timeout=5) as plain, pytest.raises(RemoteError) as info:
            plain.list_bots()
        assert info.value.code == grpc.StatusCode.UNAVAILABLE
        listed = arena_cli(
            "bot", "list", "--server", f"https://{server.address}", "--ca-file", str(cert), "--json"
        )
        assert listed.returncode == 0, listed.stderr
        assert [b["name"] for b in json.loads(listed.stdout)] == ["tls-bot"]
        board = arena_cli("ratings", "--server", server.address, "--ca-file", str(cert), "--json")
        assert board.returncode == 0, board.stderr
        assert json.loads(board.stdout) == []
    finally:
        assert server.stop() == 0


def test_serve_refuses_to_run_bots_without_the_sandbox_unless_told(tmp_path: Path) -> None:
    result = arena_cli("serve", "--db", str(tmp_path / "x.db"), "--sandbox", "off")
    assert result.returncode == 2
    assert result.stderr.startswith(
        "arena: error: arena serve runs submitted bots, and will not without the sandbox "
        "(--sandbox off)"
    )
    assert "--insecure-no-sandbox" in result.stderr
    assert not (tmp_path / "x.db").exists()


def test_an_insecure_server_says_so_at_start_up(tmp_path: Path) -> None:
    server = ArenaProcess(tmp_path / "x.db", "--sandbox", "off", "--insecure-no-sandbox")
    try:
        deadline = time.monotonic() + 30
        while not any("WITHOUT" in line for line in server.lines):
            assert time.monotonic() < deadline, server.lines
            time.sleep(0.05)
        said = "".join(server.lines)
        warning = "WARNING: bots run WITHOUT the sandbox (--sandbox off; --insecure-no-sandbox)"
        assert warning in said
    finally:
        assert server.stop() == 0


def test_tls_needs_cert_and_key(tmp_path: Path) -> None:
    result = arena_cli("serve", "--db", str(tmp_path / "x.db"), "--tls-cert", "nope.pem")
    assert result.returncode == 2
    assert result.stderr.strip() == "arena: error: TLS needs both --tls-cert and --tls-key"


# -- the CLI against a server ------------------------------------------------------------------


def test_cli_bot_submit_and_list(arena: ArenaProcess, alice: str, tmp_path: Path) -> None:
    bot = bot_copy(tmp_path, "cli-bot")
    env = {"ARENA_SERVER": arena.address, "ARENA_TOKEN": alice}
    submitted = arena_cli("bot", "submit", str(bot), env=env)
    assert submitted.returncode == 0, submitted.stderr
    assert re.fullmatch(r"cli-bot@\S+ [0-9a-f]{12}: new version\n", submitted.stdout)
    again = arena_cli("bot", "submit", str(bot), "--server", arena.address, "--token", alice)
    assert "unchanged" in again.stdout
    listed = arena_cli("bot", "list", "--server", arena.address, "--json")
    assert listed.returncode == 0, listed.stderr
    rows = {r["name"]: r for r in json.loads(listed.stdout)}
    assert rows["cli-bot"]["owner"].startswith("alice-")
    table = arena_cli("bot", "list", "--server", arena.address)
    assert re.search(r"(?m)^cli-bot\s+\S+\s+[0-9a-f]{12}\s+alice-", table.stdout)
    shown = arena_cli("bot", "show", "cli-bot", "--server", arena.address, "--json")
    assert len(json.loads(shown.stdout)["versions"]) == 1


def test_cli_errors_are_one_line(arena: ArenaProcess, tmp_path: Path) -> None:
    bot = bot_copy(tmp_path, "cli-bad")
    result = arena_cli("bot", "submit", str(bot), "--server", arena.address, "--token", "nope")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert "UNAUTHENTICATED" in result.stderr and "unknown token" in result.stderr
    gone = arena_cli("bot", "list", "--server", "127.0.0.1:1")
    assert gone.returncode == 2
    assert gone.stderr.startswith("arena: error: cannot reach the arena at 127.0.0.1:1")


def test_local_submit_uses_the_same_checks(tmp_path: Path) -> None:
    db = tmp_path / "local.db"
    bot = bot_copy(tmp_path, "local-bot")
    result = arena_cli("bot", "submit", str(bot), "--db", str(db))
    assert result.returncode == 0, result.stderr
    content_hash = result.stdout.split()[1].rstrip(":")
    stored = [p for p in (tmp_path / "local-data" / "bots").iterdir()]
    assert len(stored) == 1 and stored[0].name.startswith(content_hash)
    os.symlink("/etc/passwd", bot / "escape")
    refused = arena_cli("bot", "submit", str(bot), "--db", str(db))
    assert refused.returncode == 2
    assert "absolute path" in refused.stderr


def test_sigterm_with_nothing_running_exits_cleanly(tmp_path: Path) -> None:
    server = ArenaProcess(tmp_path / "idle.db")
    started = time.monotonic()
    assert server.stop() == 0
    assert time.monotonic() - started < 30
    assert any("stopped" in line for line in server.lines)
