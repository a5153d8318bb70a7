"""A real ``dokobot run`` process pointed at a fake Discord (tests and benches that need the
bot in its own operating-system process: several shards on PostgreSQL, or the bot measured
apart from the fake and its simulated people).

    python tests/discord_fake/bot_process.py PORT [dokobot run options ...]

PORT is the port of a running :class:`~discord_fake.FakeDiscord` on 127.0.0.1. discord.py's
REST base and default gateway are pointed at it exactly as :meth:`FakeDiscord.patched` does
in-process; everything else is the command line's ``dokobot run`` (configuration file,
``DOKOBOT_DISCORD_TOKEN`` and the other variables from the environment).
"""

from __future__ import annotations

import sys

import discord
import yarl

from dokobot.cli import main


def run(argv: list[str]) -> int:
    port, *rest = argv
    discord.http.Route.BASE = f"http://127.0.0.1:{int(port)}/api/v10"
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(
        f"ws://127.0.0.1:{int(port)}/gateway"
    )
    return main(["run", *rest])


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
