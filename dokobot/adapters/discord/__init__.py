"""dokobot on Discord (discord.py 2.7).

Run it with ``await run_discord(service, token)``; without a token it reads the
environment variable ``DOKOBOT_DISCORD_TOKEN``. The bot needs the ``bot`` and
``applications.commands`` scopes and, in the game channels, View Channel, Send Messages, Embed
Links, Attach Files and Read Message History; no privileged intent is used.

* Slash commands (``/join``, ``/play``, ... with German names such as ``/gesund``) and
  buttons turn into the host's command texts (:mod:`.slash`, :mod:`.buttons`).
* The host's answers are routed by :class:`DiscordAdapter`: one board message per game,
  edited in place (:mod:`.board`), replies ephemeral, other private texts by DM with
  buttons, and a "My cards" button on the board.
* Buttons keep working after a restart: their ``custom_id`` carries table, decision and
  command.

>>> from dokobot.adapters.discord import DiscordAdapter, run_discord
"""

from dokobot.adapters.discord.adapter import DiscordAdapter, ServiceLike
from dokobot.adapters.discord.buttons import DokoButton
from dokobot.adapters.discord.gateway import (
    ShardedDiscordAdapter,
    create_adapter,
    run_discord,
    sync_discord,
)
from dokobot.adapters.discord.i18n import DokoTranslator
from dokobot.adapters.discord.token import TOKEN_ENV, resolve_token

__all__ = [
    "TOKEN_ENV",
    "DiscordAdapter",
    "DokoButton",
    "DokoTranslator",
    "ServiceLike",
    "ShardedDiscordAdapter",
    "create_adapter",
    "resolve_token",
    "run_discord",
    "sync_discord",
]
