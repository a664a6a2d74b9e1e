"""Bot runtime: read a bot's manifest, start it as a supervised child process, or connect to
one that runs elsewhere. See docs/bots-and-manifests.md."""

from arena.runtime.botlog import DEFAULT_LOG_LIMIT
from arena.runtime.channel import CHANNEL_OPTIONS, health_status, open_channel
from arena.runtime.endpoint import BotEndpoint
from arena.runtime.manifest import (
    ADDRESS_ENV,
    MANIFEST_FILE,
    NAME_ENV,
    BotLimits,
    BotManifest,
    ManifestError,
    bot_content_hash,
    load_manifest,
)
from arena.runtime.process import (
    DEFAULT_GRACE_S,
    BotStartError,
    RunningBot,
    describe_returncode,
    start_bot,
)
from arena.runtime.remote import RemoteBot, connect_remote

__all__ = [
    "ADDRESS_ENV",
    "CHANNEL_OPTIONS",
    "DEFAULT_GRACE_S",
    "DEFAULT_LOG_LIMIT",
    "MANIFEST_FILE",
    "NAME_ENV",
    "BotEndpoint",
    "BotLimits",
    "BotManifest",
    "BotStartError",
    "ManifestError",
    "RemoteBot",
    "RunningBot",
    "bot_content_hash",
    "connect_remote",
    "describe_returncode",
    "health_status",
    "load_manifest",
    "open_channel",
    "start_bot",
]
