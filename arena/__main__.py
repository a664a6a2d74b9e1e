"""The ``arena`` program (``arena …``, ``python -m arena …``): what a program may set for its own
process, set before the command line (and grpc) is imported.

Importing :mod:`arena.cli` sets nothing process-wide (a library user may import it, and the
tests do); running the program does: the gRPC C-core logs to stderr on its own (``E1201 …
add_port.cc``, TLS handshake lines), which the program keeps off the user's terminal unless the
shell asks for them (``GRPC_VERBOSITY=debug``).
"""

from __future__ import annotations

import os


def main() -> None:
    os.environ.setdefault("GRPC_VERBOSITY", "NONE")
    os.environ.setdefault("GRPC_TRACE", "")
    from arena.cli import main as run

    run()


if __name__ == "__main__":
    main()
