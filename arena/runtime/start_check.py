"""Start a bot once, alone, and stop it: does it start and answer its health check?

The service calls this before it accepts a submission (a bot that cannot start is refused, with
its reason and output, to the submitter alone), the ladder before a new version of a bot paused
for not starting plays anyone; the web upload can call the same. The bot runs from a scratch
copy of its folder, so nothing it writes reaches the stored files.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from arena.runtime.manifest import load_manifest
from arena.runtime.process import BotStartError, start_bot


def check_starts(
    directory: str | Path,
    *,
    sandbox: str | None = None,
    startup_timeout: float | None = None,
) -> None:
    """Start the bot in ``directory`` (in the sandbox as ``sandbox`` says, as its matches
    would), wait for its health check to answer SERVING, and stop it.

    Raises ``BotStartError`` (its message says why, its ``log_tail`` what the bot printed) or
    the manifest's ``ManifestError``."""
    load_manifest(Path(directory))  # a bad manifest is the manifest's error, not a copy's
    with tempfile.TemporaryDirectory(prefix="arena-start-check-") as scratch:
        copy = Path(scratch) / "bot"
        shutil.copytree(directory, copy, symlinks=True)
        try:
            bot = start_bot(load_manifest(copy), sandbox=sandbox, startup_timeout=startup_timeout)
        except BotStartError as exc:
            # Name the bot's own folder, not the scratch copy that is gone now.
            def own(text: str) -> str:
                return text.replace(str(copy), str(directory))

            raise BotStartError(
                own(str(exc)), name=exc.name, returncode=exc.returncode, log_tail=own(exc.log_tail)
            ) from None
        bot.stop()


__all__ = ["BotStartError", "check_starts"]
