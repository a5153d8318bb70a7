"""The upload of the slash commands (a part the :class:`DiscordAdapter` holds): globally
at the start unless the store says that these very commands were uploaded before (by this
or another process of the bot), or to every server the bot is in, or not at all."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence
from typing import Any, Final

import discord
from discord import app_commands

from dokobot.host.contract import Host

log = logging.getLogger(__name__)

SYNC_MODES: Final = ("global", "guild", "off")
TREE_OWNER: Final = "discord:application"
TREE_PREFERENCE: Final = "command_tree_hash"
"""Where the store keeps the hash of the slash commands uploaded last (see
:meth:`CommandUpload.digest`): a start uploads them only when they changed."""


class CommandUpload:
    """Uploads the commands of ``tree``; ``mode``: ``"global"``, ``"guild"`` (to every
    server the bot is in, once it is ready) or ``"off"`` (``True``/``False``: global/off)."""

    def __init__(self, tree: app_commands.CommandTree[Any], host: Host, mode: bool | str) -> None:
        if isinstance(mode, bool):
            mode = "global" if mode else "off"
        if mode not in SYNC_MODES:
            raise ValueError(f"sync_commands must be one of {', '.join(SYNC_MODES)}")
        self.tree = tree
        self.host = host
        self.mode = mode
        self._synced_guilds = False

    def digest(self) -> str:
        """A hash of the slash commands as they would be uploaded (names, texts, options)."""
        payload = [c.to_dict(self.tree) for c in self.tree.get_commands()]
        blob = json.dumps(payload, sort_keys=True, default=str).encode()
        return hashlib.sha256(blob).hexdigest()[:32]

    async def at_start(self) -> None:
        """Upload the commands globally if that is the mode and they changed."""
        if self.mode == "global":
            await self._sync_if_changed()

    async def when_ready(self, guilds: Sequence[discord.Guild]) -> None:
        """Upload the commands to every server in ``guilds`` once, if that is the mode."""
        if self.mode == "guild" and not self._synced_guilds:
            self._synced_guilds = True
            for guild in guilds:
                await self.upload(guild)

    async def _sync_if_changed(self) -> None:
        """Upload the slash commands globally unless the store says that these very
        commands were uploaded before (by this or another process of the bot)."""
        digest = self.digest()
        try:
            known = await self.host.preference_of(TREE_OWNER, TREE_PREFERENCE)
        except Exception:
            log.exception("could not read the hash of the uploaded slash commands")
            known = None
        if known == digest:
            log.info("the slash commands are unchanged: not uploaded")
            return
        if not await self.upload():
            return
        try:
            await self.host.remember_preference(TREE_OWNER, TREE_PREFERENCE, digest)
        except Exception:
            log.exception("could not keep the hash of the uploaded slash commands")

    async def upload(self, guild: discord.abc.Snowflake | None = None) -> bool:
        """Upload the slash commands (globally, or to ``guild``); False if Discord refused."""
        try:
            if guild is not None:
                self.tree.copy_global_to(guild=guild)
            await self.tree.sync(guild=guild)
        except discord.HTTPException:
            log.exception("could not upload the slash commands")
            return False
        return True
