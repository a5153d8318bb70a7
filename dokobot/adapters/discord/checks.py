"""Admin and permission checks: who counts as a server admin, and which channel
permissions the bot lacks (a part the :class:`DiscordAdapter` holds)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, Final

import aiohttp
import discord

from dokobot import bounded
from dokobot.adapters.discord.i18n import lang_of, text
from dokobot.adapters.discord.languages import Languages
from dokobot.adapters.discord.threads import Threads
from dokobot.bounded import Bounded

log = logging.getLogger(__name__)

NEEDED_PERMISSIONS: Final = (
    "view_channel",
    "send_messages",
    "embed_links",
    "attach_files",
    "read_message_history",
)


def missing_permissions(permissions: discord.Permissions) -> list[str]:
    """The names of :data:`NEEDED_PERMISSIONS` that ``permissions`` lacks.

    >>> missing_permissions(discord.Permissions(send_messages=True, view_channel=True))
    ['embed_links', 'attach_files', 'read_message_history']
    """
    return [name for name in NEEDED_PERMISSIONS if not getattr(permissions, name)]


class AdminChecks:
    """The adapter's checks of rights in the channels of ``client``. ``admin_role``: members
    with a role of this name (or id) count as admins too; ``dm(user_id)``: a user's DM
    channel (a server's owner is told there when the bot lost its permissions)."""

    def __init__(
        self,
        client: discord.Client,
        admin_role: str | None,
        threads: Threads,
        languages: Languages,
        dm: Callable[[int], Awaitable[discord.PartialMessageable]],
    ) -> None:
        self.client = client
        self._admin_role = admin_role.strip().lower() if admin_role and admin_role.strip() else None
        self.threads = threads
        self.languages = languages
        self.dm = dm
        self._admins: Bounded[tuple[int, int], bool] = Bounded(bounded.CAPS.users)
        """(channel, user): whether the user was an admin at his last interaction there."""

    async def report_lost_permissions(self, channel_id: int, lang: str) -> None:
        """Say that the bot may no longer show a table in ``channel_id`` (the caller says it
        once): in the channel; if Discord refuses that too (no Send Messages), by DM to the
        server's owner, who can grant the permissions; else only the log has it."""
        try:
            await self.client.get_partial_messageable(channel_id).send(
                text("board_forbidden", lang)
            )
            return
        except discord.HTTPException as exc:
            log.info("could not say so in channel %s either: %s", channel_id, exc.text)
        except (aiohttp.ClientError, OSError) as exc:
            log.info("could not say so in channel %s either: %r", channel_id, exc)
        channel = self.client.get_channel(channel_id) or self.client.get_channel(
            self.threads.parent_of(channel_id) or 0
        )
        guild = getattr(channel, "guild", None)
        owner = guild.owner_id if isinstance(guild, discord.Guild) else None
        if owner is None:
            log.warning("channel %s: no server owner known to tell", channel_id)
            return
        try:
            dm = await self.dm(owner)
            await dm.send(text("board_forbidden_owner", lang, channel=f"<#{channel_id}>"))
        except (discord.HTTPException, aiohttp.ClientError, OSError) as exc:
            log.warning("could not tell the owner of the server of channel %s: %s", channel_id, exc)

    async def check_permissions(self, interaction: discord.Interaction[Any]) -> bool:
        """Before a table is created: tell the user (ephemerally) which channel permissions
        the bot lacks; True if none."""
        if interaction.guild_id is None:
            return True
        missing = missing_permissions(interaction.app_permissions)
        if not missing:
            return True
        lang = self.languages.user(interaction.user.id) or lang_of(interaction.locale)
        names = ", ".join(text("perm_" + name, lang) for name in missing)
        await interaction.response.send_message(
            text("missing_permissions", lang, names=names), ephemeral=True
        )
        return False

    def is_admin(self, interaction: discord.Interaction[Any], table: int | None) -> bool:
        """Owner, Manage Server, Administrator or the admin role, from the interaction itself
        (no members intent needed). In a DM: what the user's last interaction in the table's
        channel said."""
        user = interaction.user
        guild = interaction.guild
        if interaction.guild_id is not None and isinstance(user, discord.Member):
            perms = interaction.permissions
            admin = (
                (guild is not None and guild.owner_id == user.id)
                or perms.manage_guild
                or perms.administrator
                or self._has_admin_role(user)
            )
            if interaction.channel_id is not None:
                self._admins[(interaction.channel_id, user.id)] = admin
            return admin
        if table is None:
            return False
        channel = self.client.get_channel(table)
        guild = getattr(channel, "guild", None)
        if isinstance(guild, discord.Guild) and guild.owner_id == user.id:
            return True
        return self._admins.get((table, user.id), False)

    def _has_admin_role(self, member: discord.Member) -> bool:
        role = self._admin_role
        return role is not None and any(
            r.name.lower() == role or str(r.id) == role for r in member.roles
        )
