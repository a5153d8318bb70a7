"""Admin and permission checks: who counts as a server admin, and which channel
permissions the bot lacks."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Final

import aiohttp
import discord
from discord.ext import commands

from dokobot.adapters.discord.i18n import lang_of, text
from dokobot.adapters.discord.languages import Languages
from dokobot.adapters.discord.threads import Threads
from dokobot.bounded import Bounded
from dokobot.host.contract import Host

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


if TYPE_CHECKING:
    _Base = commands.Bot
else:
    _Base = object


class AdminChecks(_Base):
    """The adapter's checks of rights (a part of :class:`DiscordAdapter`)."""

    service: Host
    _admin_role: str | None
    _admins: Bounded[tuple[int, int], bool]
    threads: Threads
    languages: Languages

    if TYPE_CHECKING:

        async def _dm(self, user_id: int) -> discord.PartialMessageable: ...

    async def report_lost_permissions(self, channel_id: int, lang: str) -> None:
        """Say that the bot may no longer show a table in ``channel_id`` (the caller says it
        once): in the channel; if Discord refuses that too (no Send Messages), by DM to the
        server's owner, who can grant the permissions; else only the log has it."""
        try:
            await self.get_partial_messageable(channel_id).send(text("board_forbidden", lang))
            return
        except discord.HTTPException as exc:
            log.info("could not say so in channel %s either: %s", channel_id, exc.text)
        except (aiohttp.ClientError, OSError) as exc:
            log.info("could not say so in channel %s either: %r", channel_id, exc)
        channel = self.get_channel(channel_id) or self.get_channel(
            self.threads.parent_of(channel_id) or 0
        )
        guild = getattr(channel, "guild", None)
        owner = guild.owner_id if isinstance(guild, discord.Guild) else None
        if owner is None:
            log.warning("channel %s: no server owner known to tell", channel_id)
            return
        try:
            dm = await self._dm(owner)
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

    def _is_admin(self, interaction: discord.Interaction[Any], table: int | None) -> bool:
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
        channel = self.get_channel(table)
        guild = getattr(channel, "guild", None)
        if isinstance(guild, discord.Guild) and guild.owner_id == user.id:
            return True
        return self._admins.get((table, user.id), False)

    def _has_admin_role(self, member: discord.Member) -> bool:
        role = self._admin_role
        return role is not None and any(
            r.name.lower() == role or str(r.id) == role for r in member.roles
        )
