"""IRC adapter (see :mod:`dokobot.adapters.irc.adapter`)."""

from .adapter import IrcAdapter, ManagedService, ServiceLike, run_irc
from .settings import PASSWORD_ENV, IrcSettings

__all__ = ["PASSWORD_ENV", "IrcAdapter", "IrcSettings", "ManagedService", "ServiceLike", "run_irc"]
