"""No module of the arena imports itself back through others: the import graph has no cycle.

Read from the source (every ``import`` statement, also those inside functions, which a cycle
hides behind), so a cycle fails here before it fails at some import order at run time.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import arena

ROOT = Path(arena.__file__).parent


def _modules() -> dict[str, Path]:
    found = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        if "_gen" in parts or "migrations" in parts:
            continue  # generated code, and Alembic scripts loaded by path
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _import_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                # ``from package import submodule`` depends on the submodule, not on the package.
                targets = [
                    f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                    for a in node.names
                ]
            graph[name].update(t for t in targets if t in modules and t != name)
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_the_graph_sees_the_cli_modules() -> None:
    graph = _import_graph()
    assert "arena.cli.open_arena" in graph["arena.cli.ratings"]
    assert "arena.cli.remote" in graph["arena.cli.open_arena"]
    assert "arena.cli.interface" in graph["arena.cli.remote"]


def test_no_import_cycle() -> None:
    cycle = _cycle(_import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_a_cycle_is_found() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


_PRIVATE_GRPC = ("grpc._cython", "grpc._common")


def _private_grpc_imports(path: Path) -> list[str]:
    """Where ``path`` imports grpcio's internals (``import grpc._cython…``,
    ``from grpc._cython import …``, ``from grpc import _common``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        for name in names:
            if any(name == p or name.startswith(p + ".") for p in _PRIVATE_GRPC):
                found.append(f"{path.name}:{node.lineno} imports {name}")
                break  # one line, one finding
    return found


def test_nothing_imports_grpc_internals() -> None:
    """The arena talks to bots through grpcio's public API only: its internals change from one
    grpcio version to the next."""
    found = [hit for path in _modules().values() for hit in _private_grpc_imports(path)]
    assert not found, "; ".join(found)


def test_the_private_import_check_finds_one(tmp_path: Path) -> None:
    path = tmp_path / "x.py"
    path.write_text(
        "import grpc\nfrom grpc import aio\nfrom grpc._cython import cygrpc\n"
        "from grpc import _common\nimport grpc._cython.x\n"
    )
    hits = _private_grpc_imports(path)
    assert [h.split(" imports ")[1] for h in hits] == [
        "grpc._cython",
        "grpc._common",
        "grpc._cython.x",
    ]


def test_importing_arena_changes_no_environment() -> None:
    """Importing the package sets nothing process-wide: not ``GRPC_EXPERIMENTS`` (grpc's I/O
    manager is the operator's choice), nor any other variable, for this process or its
    children."""
    probe = (
        "import json, os; before = dict(os.environ); import arena, arena.referee, "
        "arena.runtime, arena.sdk, arena.cli, arena.web.app; "
        "print(json.dumps([before, dict(os.environ)]))"
    )
    clean = {k: v for k, v in os.environ.items() if k != "GRPC_EXPERIMENTS"}
    done = subprocess.run(
        [sys.executable, "-c", probe],
        env=clean,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    before, after = json.loads(done.stdout.strip().splitlines()[-1])
    assert "GRPC_EXPERIMENTS" not in after
    assert after == before


# -- the floors: engine <- referee <- tournament <- service/web/CLI, nothing back up --------------

FLOORS: dict[str, int] = {
    # 0: the pure parts: the engine (rules), and what knows nothing of a match being played
    "arena": 0, "arena.errors": 0, "arena.rules": 0, "arena.stats": 0, "arena.ratings": 0,
    "arena.bot_protocol": 0, "arena.sandbox": 0, "arena.analysis": 0, "arena.envs": 0,
    # 1: playing one match (the referee), running a bot (runtime), being a bot (sdk)
    "arena.referee": 1, "arena.runtime": 1, "arena.sdk": 1,
    # 2: keeping what was played
    "arena.store": 2, "arena.analysis_worker": 2,
    # 3: many matches (tournaments), and what of them may be shown to whom
    "arena.tournament": 3, "arena.visibility": 3,
    # 4: what runs tournaments: the ladder, people's tables, a cluster
    "arena.ladder": 4, "arena.humanplay": 4, "arena.distributed": 4,
    # 5: the doors: the service, the web, the command line, the benchmarks
    "arena.service": 5, "arena.web": 5, "arena.cli": 5, "arena.bench": 5, "arena.__main__": 5,
}  # fmt: skip
"""Each package's floor. A module imports only from its own floor or below; the service and the
web, on one floor, are kept apart by the test after this one."""


def _floor(module: str) -> int:
    parts = module.split(".")
    for n in range(len(parts), 0, -1):
        if (name := ".".join(parts[:n])) in FLOORS:
            return FLOORS[name]
    raise AssertionError(f"{module} has no floor: add its package to FLOORS")


def _upward(graph: dict[str, set[str]]) -> list[str]:
    return sorted(
        f"{a} (floor {_floor(a)}) imports {b} (floor {_floor(b)})"
        for a, targets in graph.items()
        for b in targets
        if _floor(b) > _floor(a)
    )


def test_nothing_imports_from_a_floor_above() -> None:
    assert _upward(_import_graph()) == []


def test_the_floor_check_finds_one() -> None:
    graph = {"arena.store.matches": {"arena.referee.record", "arena.tournament.runner"}}
    assert _upward(graph) == [
        "arena.store.matches (floor 2) imports arena.tournament.runner (floor 3)"
    ]


# -- the web's floor: what it may take from the service, and the store through its public API --

WEB_FROM_SERVICE = {
    "arena.service.permissions": "the service's per-account quotas and their errors: /account "
    "shows them and /submit and comparisons from a bot page are held to them",
    "arena.service.auth": "the service's caller (a token and its role): comparisons from a bot "
    "page are started through the service's TournamentManager in the signed-in caller's name",
    "arena.service.tournaments": "the service's TournamentManager's owner mark on a comparison "
    "(who may cancel it)",
}
"""What of ``arena.service`` the web may import, and why; anything else (the visibility
policy above all: that is ``arena.visibility``, below both) is read through its own module."""


def test_the_web_takes_from_the_service_only_what_is_the_services() -> None:
    graph = _import_graph()
    taken = {
        (name, dep)
        for name, deps in graph.items()
        if name == "arena.web" or name.startswith("arena.web.")
        for dep in deps
        if dep == "arena.service" or dep.startswith("arena.service.")
    }
    extra = sorted(f"{name} imports {dep}" for name, dep in taken if dep not in WEB_FROM_SERVICE)
    assert not extra, "; ".join(extra)
    assert not any(dep == "arena.service.visibility" for _, dep in taken)
    # the allowance is not wider than what is used
    unused = set(WEB_FROM_SERVICE) - {dep for _, dep in taken}
    assert not unused, f"allowed but no longer imported by arena.web: {sorted(unused)}"


def _store_private_names() -> set[str]:
    from arena.store import Store

    names = {n for n in dir(Store) if n.startswith("_") and not n.startswith("__")}
    return names | {"_engine", "_write_engine", "_rater"}  # set in StoreCore.__init__


def _private_store_uses(path: Path, private: set[str]) -> list[str]:
    """``<something named …store>.<private name of Store>`` in ``path``: ``store._read()``,
    ``self.store._engine``, ``arena.store._write()``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(node, ast.Attribute) or node.attr not in private:
            continue
        owner = node.value
        ident = (
            owner.id if isinstance(owner, ast.Name)
            else owner.attr if isinstance(owner, ast.Attribute) else ""
        )  # fmt: skip
        if "store" in ident.lower():
            found.append(f"{path.name}:{node.lineno} uses {ident}.{node.attr}")
    return found


def test_nothing_outside_the_store_uses_its_private_attributes() -> None:
    private = _store_private_names()
    assert {"_read", "_write", "_engine"} <= private
    found = [
        hit
        for name, path in _modules().items()
        if not (name == "arena.store" or name.startswith("arena.store."))
        for hit in _private_store_uses(path, private)
    ]
    assert not found, "; ".join(found)


def test_the_private_store_check_finds_one(tmp_path: Path) -> None:
    path = tmp_path / "x.py"
    path.write_text(
        "def f(store, self):\n    with store._read() as s:\n        pass\n"
        "    self.store._engine.url\n    self._rater.rate()\n    store.get_match('x')\n"
    )
    hits = _private_store_uses(path, _store_private_names())
    assert sorted(h.split(" uses ")[1] for h in hits) == ["store._engine", "store._read"]
