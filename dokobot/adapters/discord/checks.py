"""Admin and permission checks: who counts as a server admin, and which channel
permissions the bot lacks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import discord
from discord.ext import commands

from dokobot.adapters.discord.i18n import lang_of, text
from dokobot.adapters.discord.messages import ask_service, qualify
from dokobot.bounded import Bounded

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

    _admin_role: str | None
    _admins: Bounded[tuple[int, int], bool]
    _user_lang: Bounded[int, str | None]

    async def check_permissions(self, interaction: discord.Interaction[Any]) -> bool:
        """Before a table is created: tell the user (ephemerally) which channel permissions
        the bot lacks; True if none."""
        if interaction.guild_id is None:
            return True
        missing = missing_permissions(interaction.app_permissions)
        if not missing:
            return True
        lang = self._user_language(interaction.user.id) or lang_of(interaction.locale)
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

    def _user_language(self, user_id: int) -> str | None:
        """The language ``user_id`` chose with /lang, if any: remembered here, else asked of
        the service (which has it from the store)."""

        def load(user: int) -> str | None:
            lang = ask_service(getattr(self, "service", None), "language_of", qualify(user))
            return lang if isinstance(lang, str) else None

        return self._user_lang.remembered(user_id, load, keep_none=False)

    def _has_admin_role(self, member: discord.Member) -> bool:
        role = self._admin_role
        return role is not None and any(
            r.name.lower() == role or str(r.id) == role for r in member.roles
        )
