"""Play in a terminal: the console adapter.

One person plays against three computer players by default. With several local players,
prefix a line with ``name:`` to speak as that player; without a prefix the line is said by
the player whose turn it is (or the first player). ``/quit`` ends the session.

Nobody chats in a terminal, so a line need not start with ``/``: a line whose first word is
a command (``help``, ``hand``, ``healthy``) is that command, a card alone is played on one's
turn (as at a chat table), and any other line that gets no answer gets a hint instead of
silence. Typed lines are read as the text chats read them
(:func:`dokobot.adapters.textchat.typed.alone_text`), and a question's choices are shown as
the text chats show them (:func:`~dokobot.adapters.textchat.typed.with_choices`).
"""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import TextIO

from . import languages
from .adapters.textchat.typed import alone_text, typed_command, with_choices
from .host.commands import guess
from .host.contract import Host
from .host.events import READY, Event, Input, Private, Public
from .host.i18n import render
from .host.options import TableOptions
from .host.service import Service

CHANNEL = "console"


def is_quit(line: str, lang: str = languages.DEFAULT) -> bool:
    """Whether ``line`` is the quit command alone, by any of its names for a reader of
    ``lang``, with or without ``/`` or ``!`` (``quit``, ``/exit``, ``beenden``).

    >>> is_quit("beenden", "de"), is_quit("/Quit"), is_quit("!exit"), is_quit("quit now")
    (True, True, True, False)
    >>> is_quit("")
    False
    """
    text = alone_text(line, lang, "!")
    return text is not None and typed_command(text) == ("quit", [])


def _default_name() -> str:
    try:
        name = getpass.getuser()
    except Exception:
        name = "you"
    return (name or "you")[:16]


class Console:
    """Feeds lines to a :class:`~dokobot.host.contract.Host` and prints what comes back,
    the choices of a question as the text chats show them (``[/re | /no90]``, see
    :mod:`dokobot.adapters.textchat.typed`)."""

    def __init__(self, service: Host, players: list[str], out: TextIO | None = None) -> None:
        self.service = service
        self.players = players
        self.out = sys.stdout if out is None else out  # the stdout of now, not of import
        service.listener = self._listen

    def user(self, name: str) -> str:
        return f"console:{name}"

    def show(self, events: list[Event]) -> None:
        local = {self.user(name) for name in self.players}
        for e in events:
            if isinstance(e, Public):
                if e.waits_for not in local:  # else the private question says it
                    print(e.text, file=self.out)
            elif isinstance(e, Private):
                name = e.user.split(":", 1)[-1]
                prefix = f"[{name}] " if len(self.players) > 1 else ""
                # no buttons: the choices the text does not name, as commands to type
                for line in with_choices(e.text, e.choices, e.lang, "/").splitlines():
                    print(f"  {prefix}{line}", file=self.out)
        self.out.flush()

    async def _listen(self, events: list[Event]) -> None:
        self.show(events)

    async def say(self, name: str, text: str, *, show: bool = True,
                  hide: Event | None = None, typed: bool = False) -> None:  # fmt: skip
        """Say ``text`` as ``name`` and show the answers (but ``hide``). ``typed``: a line
        from the keyboard, read as :func:`alone_text` reads it (a command word without its
        ``/`` gets one), where a line nobody answers (no command, not a card on the sender's
        turn) gets a hint."""
        if typed:
            text = alone_text(text, self.language, "!") or ""
            if not text:
                return
        bare = typed and not text.startswith("/")
        events = await self.service.handle(Input(CHANNEL, self.user(name), name, text,
                                                 admin=True))  # fmt: skip
        if bare and not events:
            lang = self.service.reader_language(self.user(name), CHANNEL)
            words = text.split()
            word = words[0]
            # one mistyped word: the same hint as with the /; a longer line is chat
            close = guess(word.lower(), lang) if len(words) == 1 else None
            if close is not None:
                hint = render(lang, "unknown_command_guess", {"word": word, "guess": close})
            else:
                hint = render(lang, "console.bare_line")
            events = [Private(CHANNEL, self.user(name), hint)]
        if show:
            self.show([e for e in events if e != hide])
        await self.service.idle()

    def speaker(self, line: str) -> tuple[str, str]:
        """Who says ``line``, and what: a local player's name and a colon before it (the
        longest name that fits, so a name may hold a colon itself: ``Dr: Who: /hand``),
        else the player whose turn it is, else the first player."""
        text = line.strip()
        for name in sorted(self.players, key=len, reverse=True):
            rest = text.removeprefix(name).lstrip()
            if len(rest) < len(text) and rest.startswith(":"):
                return name, rest[1:].strip()
        turn = self.service.on_turn(CHANNEL)
        if turn is not None and turn[0] in self.players:
            return turn[0], line
        return self.players[0], line

    @property
    def language(self) -> str:
        """The table language: the console's banner and public lines."""
        return self.service.channel_language(CHANNEL)

    async def setup(self, bots: int, level: str, seats: int = 4) -> None:
        auto_start = len(self.players) + bots == seats
        # The console deals by itself: the table's "type /start to deal" would mislead.
        complete = Public(
            CHANNEL, render(self.language, "table_complete"), lang=self.language, kind=READY
        )
        for i, name in enumerate(self.players):
            last = auto_start and bots == 0 and i == len(self.players) - 1
            await self.say(name, "/join", hide=complete if last else None)
        for i in range(bots):
            last = auto_start and i == bots - 1
            await self.say(self.players[0], f"/join bot {level}", hide=complete if last else None)
        if auto_start:
            await self.say(self.players[0], "/start")

    async def set_language(self, name: str, text: str) -> bool:
        """``/lang X`` in the console (``text`` as :func:`alone_text` reads it): one screen,
        so the table language follows too."""
        command = typed_command(text)
        if command is None or command[0] != "lang" or len(command[1]) != 1:
            return False
        lang = command[1][0].lower()
        if lang not in languages.codes():
            return False
        await self.say(name, f"/option language {lang}", show=False)
        for player in self.players:
            await self.say(player, f"/lang {lang}", show=player == name)
        return True

    async def loop(self, read: Callable[[], str]) -> None:
        lines = _LineReader(read)
        while True:
            line = await lines.next()
            if line is None:
                print("", file=self.out)
                return
            if is_quit(line, self.language):
                return
            name, said = self.speaker(line.strip())
            text = alone_text(said, self.language, "!")
            if text is None or await self.set_language(name, text):
                continue
            await self.say(name, said, typed=True)


class _LineReader:
    """Lines from ``read``, read in a daemon thread one at a time when asked for.

    Not a worker thread of the event loop: one blocked in ``input()`` would keep the
    process from quitting at Ctrl-C until Enter is pressed. The next line is read only
    when the console asks for it, so the prompt comes after the answers to the last one.
    """

    def __init__(self, read: Callable[[], str]) -> None:
        self._read = read
        self._loop = asyncio.get_running_loop()
        self._lines: asyncio.Queue[str | None] = asyncio.Queue()
        self._wanted = threading.Semaphore(0)
        threading.Thread(target=self._reader, name="console-input", daemon=True).start()

    async def next(self) -> str | None:
        """The next line; None at the end of the input."""
        self._wanted.release()
        return await self._lines.get()

    def _put(self, line: str | None) -> None:
        with contextlib.suppress(RuntimeError):  # a closed loop: the console has quit
            self._loop.call_soon_threadsafe(self._lines.put_nowait, line)

    def _reader(self) -> None:
        while True:
            self._wanted.acquire()
            try:
                line = self._read()
            except (EOFError, KeyboardInterrupt, OSError, ValueError):
                self._put(None)
                return
            self._put(line)


def run_console(
    players: list[str] | None,
    bots: int | None,
    seed: int | None,
    lang: str = "en",
    level: str = "normal",
    options: TableOptions | None = None,
) -> int:
    """The ``dokobot console`` command; ``options``: the table's options to start with (the
    configuration's ``tables`` section)."""
    names = players or [_default_name()]
    seats = (options or TableOptions()).seats  # four, or five or six (RULES §12.9)
    if len(names) > seats or len(set(names)) != len(names):
        print(f"dokobot console: give one to {seats} different player names", file=sys.stderr)
        return 2
    n_bots = seats - len(names) if bots is None else bots
    if n_bots < 0 or len(names) + n_bots > seats:
        print(f"dokobot console: players and computer players must add up to {seats}",
              file=sys.stderr)  # fmt: skip
        return 2
    service = Service.in_memory(seed=seed, language=lang, options=options)
    console = Console(service, names)
    for name in names:
        service.router.langs[console.user(name)] = lang
    print(render(lang, "console.banner"))

    def read() -> str:
        return input("> ")

    async def main() -> None:
        try:
            await console.setup(n_bots, level, seats)
            await console.loop(read)
        finally:
            await service.close()

    def interrupted(signum: int, frame: object) -> None:
        # Ctrl-C: quit at once, whatever the event loop is doing (a cancelled task could
        # still be finishing a move). The console keeps nothing, so a running game is
        # abandoned. The handler may interrupt a print: what is buffered is flushed if it
        # can be, the notice written past the buffer.
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        notice = "\n" + render(console.language, "console.interrupted") + "\n"
        with contextlib.suppress(OSError):
            os.write(sys.stdout.fileno(), notice.encode())
        # The input thread may be inside input(), holding the lock of stdin: the
        # interpreter's own shutdown could abort on it, so leave without one.
        os._exit(130)

    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGINT, interrupted)  # asyncio.run keeps it
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        interrupted(signal.SIGINT, None)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    return 0
