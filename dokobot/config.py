"""Configuration: a YAML file (see ``config.example.yaml``) plus environment variables.

Tokens and passwords come only from the environment (``DOKOBOT_DISCORD_TOKEN``,
``DOKOBOT_IRC_PASSWORD``, ``DOKOBOT_MATRIX_TOKEN``, ``DOKOBOT_STORE_PASSWORD``). A malformed file is refused with an error that names the key
and the line.

>>> cfg = parse_config("language: de\\nstore:\\n  path: ':memory:'\\n", env={})
>>> cfg.language, cfg.store_path, cfg.has_chat()
('de', ':memory:', False)
>>> parse_config("language: fr\\n", env={})
Traceback (most recent call last):
...
dokobot.config.ConfigError: config line 1: language: must be one of en, de, it, cs
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from . import languages
from .ai.search import DEFAULT_BUDGET_S, REVIEW_BUDGET_S
from .host.options import BOT_LEVELS, OptionError, TableOptions
from .host.reviewqueue import MAX_QUEUED

log = logging.getLogger(__name__)

DISCORD_TOKEN_ENV = "DOKOBOT_DISCORD_TOKEN"
CONFIG_ENV = "DOKOBOT_CONFIG"
GENERIC_CONFIG_FILE = "config.yaml"
DEFAULT_CONFIG_FILES = ("dokobot.yaml", GENERIC_CONFIG_FILE)


class ConfigError(ValueError):
    """A configuration problem, with the key and (when known) the line."""


@dataclass(frozen=True, slots=True)
class DiscordConfig:
    token: str = field(repr=False)
    """Secret: left out of every repr (and so of logs and tracebacks)."""
    sharded: bool = False
    admin_role: str | None = None
    sync_commands: str = "global"
    """Upload the slash commands on start: ``global``, ``guild`` (to each server at once)
    or ``off`` (then ``dokobot sync`` does it)."""
    shard_count: int | None = None
    """Gateway shards of the whole bot (``discord.shard_count``); None: one process, as
    many shards as Discord recommends (if ``sharded``) or none."""
    shard_ids: tuple[int, ...] | None = None
    """The shards this process serves (``discord.shard_ids``); None: all of them."""
    global_rps: float | None = None
    """Requests per second this process may make with the bot token (``discord.global_rps``);
    None: an equal share of Discord's 50 for the bot among its processes (:attr:`rps`)."""

    @property
    def processes(self) -> int:
        """How many processes share the bot token: its shards over the shards of this one.

        >>> DiscordConfig("t", shard_count=8, shard_ids=(2, 3)).processes
        4
        """
        if self.shard_count is None or self.shard_ids is None:
            return 1
        return -(-self.shard_count // max(1, len(self.shard_ids)))

    @property
    def rps(self) -> float:
        """This process's share of the bot-wide request limit.

        >>> DiscordConfig("t", shard_count=8, shard_ids=(2, 3)).rps
        12.5
        """
        from .adapters.discord.budget import default_rps

        return self.global_rps if self.global_rps is not None else default_rps(self.processes)


@dataclass(frozen=True, slots=True)
class WebConfig:
    """The web pages (``web`` section): served by ``dokobot run`` when ``enabled``."""

    enabled: bool = False
    host: str = "127.0.0.1"
    port: int = 8080
    base_url: str | None = None
    """The public address of the pages (behind a proxy); links in the chat use it."""

    @property
    def url(self) -> str:
        return self.base_url or f"http://{self.host}:{self.port}"


@dataclass(frozen=True, slots=True)
class Config:
    language: str = "en"
    store_path: str = "dokobot.sqlite3"
    """An SQLite file (``store.path``) or a PostgreSQL url without password
    (``store.url``; the password comes from ``DOKOBOT_STORE_PASSWORD``)."""
    store_lease_s: float = 10.0
    """PostgreSQL: how long a dead process's servers stay locked (``store.lease_s``)."""
    bot_level: str = "normal"
    search_budget: float = DEFAULT_BUDGET_S
    review_budget: float = REVIEW_BUDGET_S
    """CPU seconds per decision of ``/review`` (``bots.review_budget``)."""
    review_queue: int = MAX_QUEUED
    """Games waiting for their review at most (``bots.review_queue``; 0: no background
    reviews, ``/review`` reviews the last game on request)."""
    bot_delay: float = 0.6
    turn_timeout: int = 0
    tables: dict[str, str] = field(default_factory=dict)
    """Defaults of every new table's options (the ``tables`` section: any table option,
    by name, as ``/option`` takes it)."""
    discord: DiscordConfig | None = None
    irc: Any = None
    """:class:`dokobot.adapters.irc.IrcSettings` when an ``irc`` section is given."""
    matrix: Any = None
    """:class:`dokobot.adapters.matrix.MatrixSettings` when a ``matrix`` section is given
    (the access token comes from ``DOKOBOT_MATRIX_TOKEN``)."""
    log_level: str = "INFO"
    web: WebConfig = field(default_factory=WebConfig)
    source: str = "(defaults)"
    extra: dict[str, Any] = field(default_factory=dict)

    def has_chat(self) -> bool:
        return self.discord is not None or self.irc is not None or self.matrix is not None

    def table_options(self) -> TableOptions:
        """The options every new table starts with: the language, computer level and turn
        timeout settings and the ``tables`` section (chat tables and the console alike)."""
        defaults = TableOptions(
            language=self.language, bot_level=self.bot_level, turn_timeout=self.turn_timeout
        )
        for name, word in self.tables.items():
            defaults = defaults.set(name, word)
        return defaults


_SCHEMA: dict[str, Any] = {
    "language": ("choice", languages.codes),
    "log_level": ("choice", ("DEBUG", "INFO", "WARNING", "ERROR")),
    "store": {"path": ("str", None), "url": ("str", None), "lease_s": ("float", (1.0, 600.0))},
    "bots": {
        "level": ("choice", BOT_LEVELS),
        "search_budget": ("float", (0.05, 10.0)),
        "review_budget": ("float", (0.05, 10.0)),
        "review_queue": ("int", (0, 100000)),
        "delay": ("float", (0.0, 10.0)),
    },
    "tables": {name: ("option", name) for name in TableOptions.names()},
    "discord": {
        "enabled": ("bool", None),
        "sharded": ("bool", None),
        "admin_role": ("str", None),
        "sync_commands": ("choice", ("global", "guild", "off")),
        "shard_count": ("int", (1, 100000)),
        "shard_ids": ("intlist", None),
        "global_rps": ("float", (0.1, 100000.0)),
    },
    "web": {
        "enabled": ("bool", None),
        "host": ("str", None),
        "port": ("int", (1, 65535)),
        "base_url": ("str", None),
    },
    "irc": {
        "host": ("str", None),
        "port": ("int", (1, 65535)),
        "tls": ("bool", None),
        "tls_verify": ("bool", None),
        "nick": ("str", None),
        "network": ("str", None),
        "channels": ("strlist", None),
        "admins": ("strlist", None),
        "flood_burst": ("int", (1, 100)),
        "flood_rate": ("float", (0.01, 100.0)),
        "export_dir": ("str", None),
        "export_url": ("str", None),
    },
    "matrix": {
        "homeserver": ("str", None),
        "user_id": ("str", None),
        "rooms": ("strlist", None),
        "admins": ("strlist", None),
        "send_burst": ("int", (1, 1000)),
        "send_rate": ("float", (0.01, 1000.0)),
    },
}


class LibraryDebugFilter(logging.Filter):
    """Drops the DEBUG lines of the chat libraries: pydle and discord.py log every line and
    payload they send or receive there, and private messages carry hands. dokobot's own
    DEBUG lines (which never hold a hand) pass."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.INFO or record.name.split(".")[0] == "dokobot"


def guard_logging() -> None:
    """Install :class:`LibraryDebugFilter` on every handler of the root logger."""
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, LibraryDebugFilter) for f in handler.filters):
            handler.addFilter(LibraryDebugFilter())


def _line(node: yaml.Node | None) -> str:
    return f"config line {node.start_mark.line + 1}: " if node is not None else "config: "


def _check(path: str, spec: Any, node: yaml.Node) -> Any:
    """Validate ``node`` against ``spec``; return the plain value."""
    if isinstance(spec, dict):
        if isinstance(node, yaml.ScalarNode) and node.value in ("", "~", "null"):
            return {}
        if not isinstance(node, yaml.MappingNode):
            raise ConfigError(f"{_line(node)}{path}: must be a section of keys")
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = str(key_node.value)
            sub = f"{path}.{key}" if path else key
            if key not in spec:
                known = ", ".join(sorted(spec))
                raise ConfigError(f"{_line(key_node)}{sub}: unknown key (known: {known})")
            out[key] = _check(sub, spec[key], value_node)
        return out
    kind, arg = spec
    if kind == "option":  # a table option: what /option takes
        raw = yaml.safe_load(yaml.serialize(node)) if isinstance(node, yaml.ScalarNode) else None
        word = ("on" if raw else "off") if isinstance(raw, bool) else str(raw)
        try:
            TableOptions().set(arg, word)
        except OptionError as exc:
            raise ConfigError(f"{_line(node)}{path}: must be {exc.params['what']}") from exc
        return word
    if kind == "intlist":
        values = (
            yaml.safe_load(yaml.serialize(node)) if isinstance(node, yaml.SequenceNode) else None
        )
        if not isinstance(values, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values
        ):
            raise ConfigError(f"{_line(node)}{path}: must be a list of whole numbers")
        return values
    if kind == "strlist":
        if not isinstance(node, yaml.SequenceNode) or not all(
            isinstance(n, yaml.ScalarNode) for n in node.value
        ):
            raise ConfigError(f"{_line(node)}{path}: must be a list of names")
        return [str(n.value) for n in node.value]
    if not isinstance(node, yaml.ScalarNode):
        raise ConfigError(f"{_line(node)}{path}: must be a single value")
    value = yaml.safe_load(yaml.serialize(node))
    if kind == "str":
        if value is None or isinstance(value, list | dict):
            raise ConfigError(f"{_line(node)}{path}: must be text")
        return str(value)
    if kind == "bool":
        if not isinstance(value, bool):
            raise ConfigError(f"{_line(node)}{path}: must be true or false")
        return value
    if kind == "choice":
        arg = arg() if callable(arg) else arg  # the registry's languages, as they are now
        if isinstance(value, bool) and "off" in arg:  # YAML reads a bare off as false
            value = "on" if value else "off"
        if str(value) not in arg:
            raise ConfigError(f"{_line(node)}{path}: must be one of {', '.join(arg)}")
        return str(value)
    if kind in ("int", "float"):
        ok = isinstance(value, int) and not isinstance(value, bool)
        if kind == "float":
            ok = ok or isinstance(value, float)
        if not ok or not arg[0] <= value <= arg[1]:
            what = "a whole number" if kind == "int" else "a number"
            raise ConfigError(f"{_line(node)}{path}: must be {what} from {arg[0]} to {arg[1]}")
        return value
    raise ConfigError(f"{path}: unsupported")  # pragma: no cover


def _matrix(section: dict[str, Any] | None, env: Mapping[str, str]) -> Any:
    """The Matrix settings of a ``matrix`` section (None without one)."""
    if not section:
        return None
    from .adapters.matrix.settings import TOKEN_ENV, MatrixSettings

    for key in ("homeserver", "user_id"):
        if key not in section:
            raise ConfigError(f"matrix.{key}: required when a matrix section is given")
    if not env.get(TOKEN_ENV, "").strip():
        raise ConfigError(f"matrix: set the bot's access token in {TOKEN_ENV}")
    values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in section.items()}
    try:
        return MatrixSettings(**values)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{exc}") from exc


def parse_config(text: str, env: Mapping[str, str] | None = None, source: str = "") -> Config:
    """A :class:`Config` from YAML text and environment variables."""
    env = os.environ if env is None else env
    try:
        root = yaml.compose(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"config line {mark.line + 1}: " if mark is not None else "config: "
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{where}not valid YAML ({problem})") from exc
    data: dict[str, Any] = {} if root is None else _check("", _SCHEMA, root)
    store = data.get("store", {})
    bots = data.get("bots", {})
    tables = data.get("tables", {})
    discord_cfg: DiscordConfig | None = None
    dsec = data.get("discord", {})
    token = env.get(DISCORD_TOKEN_ENV, "").strip()
    shard_count, shard_ids = _shards(dsec)
    some = shard_ids is not None and shard_count is not None and len(shard_ids) < shard_count
    if some and "url" not in store:
        raise ConfigError(
            "discord.shard_ids: the other shards are served by other processes, which share "
            "a PostgreSQL store: set store.url"
        )
    if token and dsec.get("enabled", True):
        discord_cfg = DiscordConfig(
            shard_count=shard_count,
            shard_ids=shard_ids,
            token=token,
            sharded=bool(dsec.get("sharded", False)),
            admin_role=dsec.get("admin_role"),
            sync_commands=str(dsec.get("sync_commands", "global")),
            global_rps=dsec.get("global_rps"),
        )
    irc_settings = None
    if data.get("irc"):
        from .adapters.irc.settings import IrcSettings

        sec = dict(data["irc"])
        if "host" not in sec:
            raise ConfigError("irc.host: required when an irc section is given")
        for key in ("channels", "admins"):
            if key in sec:
                sec[key] = tuple(sec[key])
        try:
            irc_settings = IrcSettings(**sec)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"{exc}") from exc
    return Config(
        matrix=_matrix(data.get("matrix"), env),
        language=data.get("language", "en"),
        store_path=_store_location(store),
        store_lease_s=float(store.get("lease_s", 10.0)),
        bot_level=bots.get("level", "normal"),
        search_budget=float(bots.get("search_budget", DEFAULT_BUDGET_S)),
        review_budget=float(bots.get("review_budget", REVIEW_BUDGET_S)),
        review_queue=int(bots.get("review_queue", MAX_QUEUED)),
        bot_delay=float(bots.get("delay", 0.6)),
        turn_timeout=int(tables.get("turn_timeout", 0)),
        tables=_table_defaults(tables),
        discord=discord_cfg,
        irc=irc_settings,
        log_level=data.get("log_level", "INFO"),
        web=WebConfig(**data.get("web", {})),
        source=source or "(text)",
    )


def _table_defaults(tables: dict[str, str]) -> dict[str, str]:
    """The ``tables`` section, checked as a whole (options that exclude each other)."""
    options = TableOptions()
    for name, word in tables.items():
        try:
            options = options.set(name, word)
        except OptionError as exc:
            raise ConfigError(f"tables.{name}: {exc}") from exc
    return dict(tables)


def _store_location(store: dict[str, Any]) -> str:
    """``store.path`` or ``store.url`` (a PostgreSQL url without its password)."""
    url = store.get("url")
    if url is None:
        return str(store.get("path", "dokobot.sqlite3"))
    if "path" in store:
        raise ConfigError("store: give either path (SQLite) or url (PostgreSQL), not both")
    if not url.startswith(("postgresql://", "postgres://")):
        raise ConfigError("store.url: must be a PostgreSQL url (postgresql://user@host/db)")
    from urllib.parse import parse_qs, urlsplit

    parts = urlsplit(url)
    if parts.password or "password" in parse_qs(parts.query):
        raise ConfigError(
            "store.url: must not hold the password; set the environment variable "
            "DOKOBOT_STORE_PASSWORD instead"
        )
    return str(url)


def _shards(dsec: dict[str, Any]) -> tuple[int | None, tuple[int, ...] | None]:
    """``discord.shard_count`` and ``discord.shard_ids``, checked against each other."""
    count = dsec.get("shard_count")
    ids = dsec.get("shard_ids")
    if ids is None:
        return count, None
    if count is None:
        raise ConfigError("discord.shard_ids: needs discord.shard_count (the bot's shards)")
    if not ids or len(set(ids)) != len(ids) or max(ids) >= count:
        raise ConfigError(
            f"discord.shard_ids: must be different numbers from 0 to {count - 1} "
            "(below discord.shard_count)"
        )
    return count, tuple(ids)


def _looks_like_ours(text: str) -> bool:
    """Whether YAML ``text`` is meant for dokobot: a mapping with one of its top keys."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return False
    return isinstance(data, dict) and any(key in _SCHEMA for key in data)


def load_config(path: str | None) -> Config:
    """Read the config file ``path`` (or ``$DOKOBOT_CONFIG``, ``dokobot.yaml``,
    ``config.yaml``); no file at all means the defaults.

    A ``config.yaml`` found by itself is skipped when it is not dokobot's (none of its
    top-level keys is one of ours): that name is common in other projects' folders.
    """
    candidates = [path] if path else [os.environ.get(CONFIG_ENV, ""), *DEFAULT_CONFIG_FILES]
    for i, cand in enumerate(candidates):
        if not cand:
            continue
        p = Path(cand)
        by_itself = not path and i > 0 and cand == GENERIC_CONFIG_FILE
        if p.is_file():
            try:
                text = p.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                if by_itself:
                    continue
                raise ConfigError(f"{p}: cannot read ({exc})") from exc
            if by_itself and not _looks_like_ours(text):
                log.warning("%s: not a dokobot configuration (no dokobot keys); ignored", p)
                continue
            try:
                return parse_config(text, source=str(p))
            except ConfigError as exc:
                raise ConfigError(f"{p}: {exc}") from exc
        if path:
            raise ConfigError(f"{p}: " + ("not a file" if p.exists() else "no such file"))
    return parse_config("", source="(defaults)")
