"""End-to-end tests of IRC fairness (fair output, identities that hold, a bot that never
goes deaf), each against a real ngIRCd started by the tests and the real host service.

ngIRCd 26.1 announces ``CASEMAPPING=ascii`` and compares nicks that way (``x[1]`` and
``x{1}`` are two users), so the default test server is the ascii-casemapping server.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import random
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from irc_player import cue
from irc_server import IrcClient, IrcMessage, NgircdServer
from test_irc_e2e import (
    BOT,
    CHANNEL,
    CHANNEL_ID,
    NETWORK,
    bare_cards_on,
    is_game_over,
    is_prompt,
    joined,
    play_until,
    played_cards,
    players,
    running,
    settings_for,
)

from dokobot.adapters.irc import IrcAdapter, IrcSettings
from dokobot.host.events import Event, Private, Public
from dokobot.host.router import Router
from dokobot.host.service import Service
from dokobot.store import SqliteStore


def plays_of(client: IrcClient) -> list[tuple[str, str]]:
    """(player, card) of every card the channel saw played (in the trick lines)."""
    return played_cards([m.text for m in client.channel_lines(CHANNEL) if m.nick == BOT])


def notice_to(needle: str) -> Callable[[IrcMessage], bool]:
    def match(message: IrcMessage) -> bool:
        return message.command == "NOTICE" and message.nick == BOT and needle in message.text

    return match


async def ask(client: IrcClient, target: str, text: str, needle: str) -> IrcMessage:
    """Send ``text`` and wait for the bot's NOTICE containing ``needle``."""
    mark = len(client.messages)
    await client.say(target, text)
    return await client.wait_for(notice_to(needle), since=mark)


async def seat_everybody(clients: list[IrcClient]) -> None:
    for client in clients:
        await client.say(CHANNEL, "!join")
        await client.wait_for(joined(client.nick))


@contextlib.asynccontextmanager
async def served(
    service: Service, settings: IrcSettings, *, restored: bool = False
) -> AsyncIterator[IrcAdapter]:
    """The adapter running for ``service`` (with the restored events, like ``dokobot run``)."""
    events = await service.start() if restored else []
    async with running(service, settings) as adapter:
        await adapter.deliver(events)
        yield adapter


# -- 1. casemapping ------------------------------------------------------------------------


async def test_ascii_casemapping_keeps_bracket_nicks_apart(ngircd: NgircdServer) -> None:
    """x[1] and x{1} are two people on an ascii server: each has a seat and a hand."""
    service = Service.in_memory(seed=3, bots=True)
    try:
        async with (
            served(service, settings_for(ngircd)) as adapter,
            players(ngircd, "x[1]", "x{1}") as (square, curly),
        ):
            assert any("CASEMAPPING=ascii" in m.raw for m in square.messages)
            assert adapter.identities.casemapping == "ascii"
            await seat_everybody([square, curly])  # without ascii folding: "already seated"
            for n in (3, 4):
                await square.say(CHANNEL, "!join bot random")
                await square.wait_for(lambda m, n=n: f"({n}/4)" in m.text)
            mark_s, mark_c = len(square.messages), len(curly.messages)
            await square.say(CHANNEL, "!start")
            hand_s = await square.wait_for(notice_to("Your hand"), since=mark_s)
            await square.say(CHANNEL, "!healthy")  # x{1}'s hand comes with her first prompt
            hand_c = await curly.wait_for(notice_to("Your hand"), since=mark_c)
            assert hand_s.target == "x[1]" and hand_c.target == "x{1}"
            assert hand_s.text != hand_c.text
            assert adapter.identities.nick_for(f"irc:{NETWORK}:x[1]") == "x[1]"
            assert adapter.identities.nick_for(f"irc:{NETWORK}:x{{1}}") == "x{1}"
    finally:
        await service.close()


# -- 2. fair output, compact help and export, the turn timer ---------------------------------


async def test_help_and_export_are_compact(ngircd: NgircdServer) -> None:
    service = Service.in_memory(seed=4, bots=True)
    try:
        async with (
            served(service, settings_for(ngircd)),
            players(ngircd, "anna", "eve") as (anna, eve),
        ):
            await anna.say(CHANNEL, "!join")
            await anna.wait_for(joined("anna"))
            for n in (2, 3, 4):
                await anna.say(CHANNEL, "!join bot random")
                await anna.wait_for(lambda m, n=n: f"({n}/4)" in m.text)
            mark = len(eve.messages)
            await eve.say(CHANNEL, "!help")
            await eve.wait_for(notice_to("!help COMMAND"), since=mark)
            await asyncio.sleep(0.3)
            help_lines = eve.notices(mark)
            assert len(help_lines) == 1, help_lines  # was 27 NOTICEs
            assert "!join" in help_lines[0] and "!export" in help_lines[0]
            assert help_lines[0].endswith(" · !help COMMAND explains one.")
            reply = await ask(eve, CHANNEL, "!help play", "!play CARD")
            assert "Cards:" in reply.text
            # an export is packed into few lines (its lines joined with " · ")
            mark = len(eve.messages)
            await eve.say(CHANNEL, "!export")
            await eve.wait_for(notice_to("dokobot export"), since=mark)
            await asyncio.sleep(0.3)
            export = eve.notices(mark)
            history = service.store.load_journal(CHANNEL_ID)
            assert len(export) < len(history) / 2, (export, history)
            assert " · " in export[0]
    finally:
        await service.close()


async def test_export_as_a_link_to_a_file(ngircd: NgircdServer, tmp_path: Path) -> None:
    service = Service.in_memory(seed=4, bots=False)
    folder = tmp_path / "exports"
    settings = settings_for(ngircd, export_dir=str(folder), export_url="https://doko.test/x/")
    try:
        async with served(service, settings), players(ngircd, "anna") as (anna,):
            await anna.say(CHANNEL, "!join")
            await anna.wait_for(joined("anna"))
            mark = len(anna.messages)
            await anna.say(CHANNEL, "!export")
            reply = await anna.wait_for(notice_to("https://doko.test/x/"), since=mark)
            await asyncio.sleep(0.2)
            assert anna.notices(mark) == [reply.text]  # one line
            name = reply.text.rsplit("/", 1)[1]
            assert len(name) > 15  # a name nobody guesses
            content = (folder / name).read_text()
            assert content.startswith("# dokobot export") and "anna: /join" in content
    finally:
        await service.close()


async def test_a_game_with_turn_timeout_while_a_spectator_spams_export_and_help(
    ngircd: NgircdServer, request: pytest.FixtureRequest
) -> None:
    """Issue 13's "done when": four people, a turn timeout, and a spectator who runs
    ``!export`` and ``!help`` over and over; nobody is declared absent.

    With ``--slow`` exactly as in production: ``turn_timeout 10`` and the default pacing
    (4 lines at once, then 1 line/s; a game takes minutes). The default run is quicker:
    3 s (a reminder after 3 s, a stand-in after 6 s) at 40 lines/s; the property is the
    same: the prompts are not stuck behind the spectator's answers, and the timer runs from
    the moment a prompt is really sent. Players answer 0.1 s after their prompt.
    """
    slow = bool(request.config.getoption("--slow"))
    service = Service.in_memory(seed=13, bots=False)
    settings = settings_for(ngircd, flood_burst=4, flood_rate=1.0 if slow else 40.0)
    stop = asyncio.Event()
    try:
        async with (
            served(service, settings),
            players(ngircd, "anna", "ben", "carl", "dora", "eve") as clients,
        ):
            *seated, eve = clients
            await seat_everybody(seated)
            table = service.router.tables[CHANNEL_ID]
            if slow:
                table.options = table.options.set("turn_timeout", "10")
            else:
                table.options = dataclasses.replace(table.options, turn_timeout=3)

            async def spam() -> int:
                count = 0
                while not stop.is_set():
                    await eve.say(CHANNEL, "!export")
                    await eve.say(CHANNEL, "!help")
                    count += 1
                    await asyncio.sleep(0.1)
                return count

            async def delay(_: int) -> None:
                await asyncio.sleep(0.1)

            # the adapter tells the service when each prompt really left
            sent: list[str] = []
            hook = service.prompt_sent

            def prompt_sent(channel: str, user: str) -> None:
                sent.append(user)
                hook(channel, user)

            service.prompt_sent = prompt_sent  # type: ignore[method-assign]
            spammer = asyncio.create_task(spam())
            await seated[0].say(CHANNEL, "!start")
            rng = random.Random(9)
            results = await asyncio.gather(
                *(
                    play_until(
                        c,
                        is_game_over,
                        style=2,
                        rng=rng,
                        before_answer=delay,
                        timeout=120 if slow else 30,
                    )
                    for c in seated
                )
            )
            stop.set()
            rounds = await spammer
            assert rounds >= 10
            assert len(sent) >= 4 * 13
            assert set(sent) == {f"irc:{NETWORK}:{c.nick}" for c in seated}
            assert all(len(prompts) == 13 for prompts in results)
            lines = [m.text for m in seated[0].channel_lines(CHANNEL) if m.nick == BOT]
            assert not [t for t in lines if "did not act in time" in t]
            assert len(played_cards(lines)) == 48
            for client in seated:
                assert not [t for t in client.notices() if "It is your turn (waiting" in t]
            # The spectator's long answers come after the game's lines, but they come.
            await eve.wait_for(
                lambda m: m.command == "NOTICE" and "dokobot export" in m.text,
                timeout=300 if slow else 10,
            )
    finally:
        stop.set()
        await service.close()


async def test_the_turn_timer_starts_when_the_prompt_leaves() -> None:
    """The host's side of the hook: on a channel whose adapter sends through a queue (it
    called ``pace``), a queued prompt starts no timer; the timer starts when the adapter
    reports the prompt sent."""
    from dokobot.host.events import Input

    service = Service(Router(seed=2))
    service.pace("irc:t:")
    reminders: list[Event] = []

    async def listener(events: list[Event]) -> None:
        reminders.extend(e for e in events if isinstance(e, Private) and e.kind == "reminder")

    service.listener = listener
    table = service.router.table("irc:t:#c")
    for name in ("anna", "ben", "carl", "dora"):
        await service.handle(Input("irc:t:#c", name, name, "/join"))
    table.options = dataclasses.replace(table.options, turn_timeout=1)
    await service.handle(Input("irc:t:#c", "anna", "anna", "/start"))
    assert table.game is not None
    turn = table.seats[table.game.turn].user
    await asyncio.sleep(2.5)  # the prompt waits in the queue: no reminder, nobody absent
    assert not reminders and not table.away
    service.prompt_sent("irc:t:#c", turn)  # it left 2.5 s late
    await asyncio.sleep(0.6)
    assert not reminders
    await asyncio.sleep(0.6)  # 1.2 s after it left: the reminder
    assert [e.user for e in reminders] == [turn]
    assert reminders[0].marker == (1, 0)
    await asyncio.sleep(1.0)  # 2.2 s after it left: a stand-in plays
    assert table.away
    await service.close()


async def test_a_stale_prompt_or_reminder_is_never_sent() -> None:
    """A reminder (or prompt) that waited in the outbox while the player acted is dropped
    when its turn comes; one that is still current goes out and starts the timer."""
    from irc_offline import offline_adapter

    from dokobot.host.events import Input

    service = Service(Router(seed=2))
    adapter, _conn = offline_adapter(service)
    assert service.paced == {"irc:net:"}
    channel = "irc:net:#c"
    for name in ("anna", "ben", "carl", "dora"):
        await service.handle(Input(channel, f"irc:net:{name}", name, "/join"))
    await adapter.deliver(await service.handle(Input(channel, "irc:net:anna", "anna", "/start")))
    table = service.router.tables[channel]
    assert table.game is not None
    first = table.seats[table.game.turn].user
    stale = Private(channel, first, "It is your turn (waiting 10 s)", kind="reminder",
                    marker=service.decision(channel))  # fmt: skip
    await adapter.deliver([stale])
    held = [u for u in adapter.outbox.units() if u.target == first and u.lane != 0]
    assert held  # queued
    # the player answers before the reminder's turn came
    events = await service.handle(Input(channel, first, "x", "/healthy"))
    await adapter.deliver(events)
    sent: list[str] = []
    while len(adapter.outbox):
        line = await adapter.outbox.get()
        sent.append(line.text)
    assert not [t for t in sent if "waiting 10 s" in t]
    assert adapter.outbox.dropped >= 1
    await service.close()


# -- 3 and 4. prompts and identities after restarts -----------------------------------------


def plays_at_least(n: int) -> Callable[[IrcMessage], bool]:
    seen: list[int] = [0]

    def check(message: IrcMessage) -> bool:
        if message.command == "PRIVMSG" and message.nick == BOT:
            seen[0] += len(played_cards([message.text]))
        return seen[0] >= n

    return check


async def test_renamed_player_returns_under_old_nick_after_a_server_restart(
    ngircd: NgircdServer,
) -> None:
    """ben becomes benny, the IRC server restarts mid-game, ben's client comes back as ben:
    the seat is still his, the pending prompt is sent again, the game goes on."""
    service = Service.in_memory(seed=41, bots=False)
    try:
        async with served(service, settings_for(ngircd)) as adapter:
            async with players(ngircd, "anna", "ben", "carl", "dora") as clients:
                await seat_everybody(clients)
                await clients[0].say(CHANNEL, "!start")
                rng = random.Random(4)
                await asyncio.gather(
                    *(play_until(c, plays_at_least(6), style=2, rng=rng) for c in clients)
                )
                await clients[1].rename("benny")
                await asyncio.sleep(0.3)
                assert service.router.tables[CHANNEL_ID].names()[1] == "benny"
                played = len(plays_of(clients[0]))
                ngircd.restart()
            await adapter.wait_ready(10)
            async with players(ngircd, "anna", "ben", "carl", "dora") as clients:
                # every player whose turn it is gets the prompt again, without speaking
                turn = service.router.tables[CHANNEL_ID].game
                assert turn is not None
                waiting = clients[turn.turn]
                prompt = await waiting.wait_for(lambda m: is_prompt(m, waiting))
                assert prompt.target == waiting.nick
                results = await asyncio.gather(
                    *(
                        play_until(c, is_game_over, style=2 + i % 2, rng=rng)
                        for i, c in enumerate(clients)
                    )
                )
                assert any(results)
                ben = clients[1]
                assert not [t for t in ben.notices() if "not seated" in t]
                after = plays_of(clients[0])
                assert played + len(after) == 48
                assert any(who == "ben" for who, _ in after)  # the name is back
                assert adapter.identities.user_id("ben") == f"irc:{NETWORK}:ben"
    finally:
        await service.close()


async def test_a_player_who_was_away_gets_the_prompt_when_back(ngircd: NgircdServer) -> None:
    """dora's connection drops; her prompt comes while she is away and is held back; when
    she joins again the prompt is sent to her without her saying anything."""
    service = Service.in_memory(seed=17, bots=False)
    try:
        async with (
            served(service, settings_for(ngircd)),
            players(ngircd, "anna", "ben", "carl") as clients,
        ):
            dora = IrcClient(ngircd.host, ngircd.port, "dora")
            await dora.connect()
            await dora.join(CHANNEL)
            await seat_everybody([*clients, dora])
            await dora.close()  # QUIT before the deal
            await clients[0].wait_for(lambda m: m.command == "QUIT" and m.nick == "dora")
            await clients[0].say(CHANNEL, "!start")
            table = service.router.tables[CHANNEL_ID]
            rng = random.Random(1)

            # the others answer until the game waits for dora
            answering = [
                asyncio.create_task(play_until(c, lambda m: False, style=2, rng=rng))
                for c in clients
            ]
            while table.game is None or table.game.turn != 3:
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.3)
            for task in answering:
                task.cancel()
            await asyncio.gather(*answering, return_exceptions=True)
            assert table.game is not None and table.game.turn == 3
            dora = IrcClient(ngircd.host, ngircd.port, "dora")
            await dora.connect()
            await dora.join(CHANNEL)
            prompt = await dora.wait_for(lambda m: is_prompt(m, dora))
            assert prompt.target == "dora"
            # she missed the deal too: her hand comes first
            hands = [m for m in dora.messages if "Your hand" in m.text and m.nick == BOT]
            assert len(hands) == 1 and hands[0].when <= prompt.when
            await asyncio.sleep(0.3)
            assert len([m for m in dora.messages if is_prompt(m, dora)]) == 1
            await dora.close()
    finally:
        await service.close()


async def test_bot_restart_mid_game_sends_the_prompt_to_a_renamed_player(
    ngircd: NgircdServer, tmp_path: Path
) -> None:
    """The bot restarts (same store) while the player to move, renamed meanwhile, waits:
    the restored prompt reaches the new nick (the nick history is durable), once, and the
    player keeps the seat."""
    path = tmp_path / "doko.db"

    def new_service() -> Service:
        return Service(Router(seed=5), SqliteStore(path))

    service = new_service()
    rng = random.Random(6)
    async with players(ngircd, "anna", "ben", "carl", "dora") as clients:
        try:
            async with served(service, settings_for(ngircd)):
                await seat_everybody(clients)
                await clients[0].say(CHANNEL, "!start")
                await asyncio.gather(
                    *(play_until(c, plays_at_least(6), style=2, rng=rng) for c in clients)
                )
                await asyncio.sleep(0.3)
                game = service.router.tables[CHANNEL_ID].game
                assert game is not None
                mover = clients[game.turn]
                old_nick = mover.nick
                await mover.rename(old_nick + "_r")
                await asyncio.sleep(0.3)
        finally:
            await service.close()
        service = new_service()  # the bot process restarts
        try:
            marks = [len(c.messages) for c in clients]
            async with served(service, settings_for(ngircd), restored=True):
                restored = await clients[0].wait_for(
                    lambda m: "the game continues" in m.text, since=marks[0]
                )
                assert restored.command == "PRIVMSG"
                mark = marks[clients.index(mover)]
                prompt = await mover.wait_for(lambda m: is_prompt(m, mover), since=mark)
                assert prompt.target == old_nick + "_r" and "Your turn" in prompt.text
                await asyncio.sleep(0.5)
                assert len([m for m in mover.messages[mark:] if is_prompt(m, mover)]) == 1
                table = service.router.tables[CHANNEL_ID]
                assert table.names()[table.seat_of(f"irc:{NETWORK}:{old_nick}") or 0] == (
                    old_nick + "_r"
                )
                results = await asyncio.gather(
                    *(
                        play_until(c, is_game_over, style=2, rng=rng, since=marks[i])
                        for i, c in enumerate(clients)
                    )
                )
                assert all(results)
                assert not [t for t in mover.notices(mark) if "not seated" in t]
        finally:
            await service.close()


# -- 5. KICK --------------------------------------------------------------------------------


async def test_bot_rejoins_after_a_kick_and_says_so(ngircd: NgircdServer) -> None:
    service = Service.in_memory(seed=1, bots=False)
    boss = IrcClient(ngircd.host, ngircd.port, "boss")
    await boss.connect()
    await boss.join(CHANNEL)  # first in the channel: boss is its operator
    try:
        async with served(service, settings_for(ngircd)) as adapter:
            mark = len(boss.messages)
            await boss.send(f"KICK {CHANNEL} {BOT} :out")
            await boss.wait_for(lambda m: m.command == "KICK", since=mark)
            while CHANNEL in adapter.joined:
                await asyncio.sleep(0.01)
            # the game goes on while the bot is out (a computer player's move, say)
            await adapter.deliver([Public(CHANNEL_ID, "cara plays ♣Q")])
            await adapter.deliver([Public(CHANNEL_ID, "Trick 2: … — cara takes it (30 eyes).")])
            rejoin = await boss.wait_for(
                lambda m: m.command == "JOIN" and m.nick == BOT, since=mark, timeout=5
            )
            said = await boss.wait_for(
                lambda m: m.command == "PRIVMSG" and m.nick == BOT and "boss kicked me" in m.text,
                since=mark,
            )
            assert said.when >= rejoin.when
            # what the channel missed, summarised once, after the rejoin
            lines = [m.text for m in boss.channel_lines(CHANNEL, mark) if m.nick == BOT]
            assert len(lines) == 1, lines
            assert "While I was out: cara plays ♣Q · Trick 2: … — cara takes it" in lines[0]
            assert CHANNEL not in adapter.kicks.missed
            assert CHANNEL in adapter.joined
            reply = await ask(boss, CHANNEL, "!table", "Seats")  # the table hears again
            assert reply.target == "boss"
    finally:
        await boss.close()
        await service.close()


async def test_after_a_kick_the_player_on_turn_is_prompted_again(ngircd: NgircdServer) -> None:
    """anna's answer typed in the channel while the bot is kicked never reaches it: after
    the rejoin the channel hears that the table goes on with anna to act, and anna gets her
    prompt again (then her answer counts). IRC tables have the turn clock by default."""
    service = Service.in_memory(seed=2, bots=True)
    boss = IrcClient(ngircd.host, ngircd.port, "boss")
    await boss.connect()
    await boss.join(CHANNEL)  # first in the channel: boss is its operator
    try:
        async with (
            served(service, settings_for(ngircd)) as adapter,
            players(ngircd, "anna") as (anna,),
        ):
            await anna.say(CHANNEL, "!join")
            await anna.wait_for(joined("anna"))
            for n in (2, 3, 4):
                await anna.say(CHANNEL, "!join bot random")
                await anna.wait_for(lambda m, n=n: f"({n}/4)" in m.text)
            table = service.router.tables[CHANNEL_ID]
            assert table.options.turn_timeout == 60  # the IRC default: the table never stalls
            mark = len(anna.messages)
            await anna.say(CHANNEL, "!start")
            prompt = await anna.wait_for(lambda m: is_prompt(m, anna), since=mark)
            game = table.game
            assert game is not None and table.seats[game.turn].name == "anna"
            moves = len(game.log)
            mark, boss_mark = len(anna.messages), len(boss.messages)
            await boss.send(f"KICK {CHANNEL} {BOT} :out")
            await boss.wait_for(lambda m: m.command == "KICK", since=boss_mark)
            while CHANNEL in adapter.joined:
                await asyncio.sleep(0.01)
            answer = "!healthy" if "Healthy or reservation?" in prompt.text else "!play 1"
            await anna.say(CHANNEL, answer)  # lost: the bot is not in the channel
            said = await boss.wait_for(
                lambda m: m.command == "PRIVMSG" and m.nick == BOT and "boss kicked me" in m.text,
                since=boss_mark,
            )
            assert "The table goes on: anna is to act" in said.text
            again = await anna.wait_for(lambda m: is_prompt(m, anna), since=mark)
            assert again.text == prompt.text and len(game.log) == moves
            await anna.say(CHANNEL, answer)
            for _ in range(200):
                if len(game.log) > moves:
                    break
                await asyncio.sleep(0.05)
            assert game.log[moves][0] == table.seat_of(f"irc:{NETWORK}:anna")
    finally:
        await boss.close()
        await service.close()


# -- 6, 8, 9. private lines, bare cards, long lines, !hand after the game --------------------


async def test_private_lines_are_commands_and_channel_chat_plays_no_card(
    ngircd: NgircdServer,
) -> None:
    service = Service.in_memory(seed=8, bots=True)
    try:
        async with (
            served(service, settings_for(ngircd)),
            players(ngircd, "anna") as (anna,),
        ):
            # a private message without ! or / is a command
            help_reply = await ask(anna, BOT, "help", "!help COMMAND")
            assert help_reply.target == "anna"
            await ask(anna, BOT, "hand", "not seated at any table")
            await ask(anna, BOT, "frobnicate", "Unknown command !frobnicate")
            await anna.say(CHANNEL, "!join")
            await anna.wait_for(joined("anna"))
            for n in (2, 3, 4):
                await anna.say(CHANNEL, "!join bot random")
                await anna.wait_for(lambda m, n=n: f"({n}/4)" in m.text)
            await anna.say(CHANNEL, "!start")
            table = service.router.tables[CHANNEL_ID]
            # anna's reservation by private message, without "!"; then her first card
            await anna.wait_for(lambda m: cue(m, anna) == "reservation")
            mark = len(anna.messages)
            await anna.say(BOT, "healthy")
            # anna is first hand: the channel line that names her to lead is her prompt
            await anna.wait_for(lambda m: cue(m, anna) in ("lead", "turn"), since=mark)
            await service.idle()
            game = table.game
            assert game is not None and game.turn == 0
            before = len(game.log)
            # chat in the channel that looks like a card plays nothing (bare_cards is off)
            number = "1"
            await anna.say(CHANNEL, number)
            await anna.say(CHANNEL, "ha")
            await asyncio.sleep(0.5)
            assert len(game.log) == before
            assert table.options.bare_cards is False
            # in a private message a bare card counts
            mark = len(anna.messages)
            await anna.say(BOT, number)
            await anna.wait_for(
                lambda m: m.command == "PRIVMSG" and "Trick 1: anna " in m.text, since=mark
            )
    finally:
        await service.close()


async def test_cut_lines_are_refused_as_too_long_and_hand_after_the_game(
    ngircd: NgircdServer,
) -> None:
    service = Service.in_memory(seed=9, bots=True)
    try:
        async with (
            served(service, settings_for(ngircd)),
            players(ngircd, "anna") as (anna,),
        ):
            await anna.say(CHANNEL, "!join")
            await anna.wait_for(joined("anna"))
            # a line that fits but is over 400 characters
            await ask(anna, CHANNEL, "!table " + "x" * 420, "too long")
            # a line the server had to cut (it hit 512 bytes): 170 characters arrive, but the
            # end is missing, so it is refused as well instead of being half-understood
            text = "!table " + "♣" * 160
            assert len(text.encode()) <= 510 - len(f"PRIVMSG {CHANNEL} :")
            reply = await ask(anna, CHANNEL, text, "too long")
            assert "400" in reply.text
            for n in (2, 3, 4):
                await anna.say(CHANNEL, "!join bot random")
                await anna.wait_for(lambda m, n=n: f"({n}/4)" in m.text)
            await bare_cards_on(anna)
            await anna.say(CHANNEL, "!start")
            await play_until(anna, is_game_over, style=2, rng=random.Random(2))
            reply = await ask(anna, CHANNEL, "!hand", "No game is running")
            assert "Your hand" not in reply.text
    finally:
        await service.close()


# -- 4b. services accounts (IRCv3 account-tag, extended-join) ---------------------------------


async def test_accounts_decide_identity_when_the_server_offers_them() -> None:
    """ngIRCd offers no accounts, so a scripted server does: the account, not the nick,
    is who somebody is."""
    from irc_server import AccountIrcServer
    from test_irc_e2e import StandInHost

    server = AccountIrcServer()
    await server.start()
    host = StandInHost()
    settings = IrcSettings(
        host=server.host, port=server.port, tls=False, nick=BOT, channels=(CHANNEL,),
        network=NETWORK, flood_burst=20, flood_rate=500.0,
    )  # fmt: skip
    try:
        async with running(host, settings) as adapter:
            requests = [line for line in server.received if line.startswith("CAP REQ")]
            assert len(requests) == 1
            assert set(requests[0].partition(":")[2].split()) == {"account-tag", "extended-join"}

            async def whoami(prefix: str) -> str:
                await server.inject(f"{prefix} PRIVMSG {CHANNEL} :!whoami")
                nick = prefix.split(":")[1].split("!")[0]
                line = await server.wait_for(lambda t: t.startswith(f"NOTICE {nick} :you are"))
                server.received.remove(line)
                return line.split("you are ")[1].split()[0]

            ben = await whoami("@account=benacct :ben!u@h")
            assert ben == f"irc:{NETWORK}:ben"
            # the same account under another nick, without any NICK line: the same person
            assert await whoami("@account=benacct :somebody!u@h") == ben
            # the nick ben from another account, or from nobody logged in: somebody else
            assert await whoami("@account=eve :ben!u@h") != ben
            assert await whoami(":ben!u@h") != ben
            # extended-join tells the account of a joining user the bot knows (carl wrote to
            # it before); a nick that never wrote to the bot gets no identity by joining
            carl = await whoami(":carl!u@h")
            await server.inject(f":carl!u@h JOIN {CHANNEL} carlacct :Carl")
            await server.inject(f":dora!u@h JOIN {CHANNEL} doraacct :Dora")
            await asyncio.sleep(0.1)
            assert not adapter.identities.knows("dora", "doraacct")
            assert await whoami("@account=carlacct :karl!u@h") == carl
    finally:
        await server.stop()
