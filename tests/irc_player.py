"""A scripted IRC player for the tests and ``bench/irc.py``: it answers every turn the bot
gives it, as a person would.

A turn reaches the player in one of two ways: a NOTICE prompt ("Your turn: 2:♣Q  5:♠10 —
trick 3: …", "Healthy or reservation?"), or a channel line that names it as the one to act
(the bot spares the notice then): "anna: healthy or reservation?", "anna leads.", or a
trick line "… — anna takes it (…)" (the trick's winner leads the next one). For a lead the
player plays from the hand it keeps: the hand NOTICE, less the cards it played.
"""

from __future__ import annotations

import random
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from irc_server import IrcClient, IrcMessage

BOT = "dokobot"
CHANNEL = "#doko"

NUMBERED_CARD = re.compile(r"(\d+):(\S+)")
GAME_OVER = re.compile(r"Game \d+ is over\.")


def numbered_cards(text: str) -> list[tuple[int, str]]:
    """The ``N:card`` pairs of a hand or turn NOTICE ("Your turn: 2:♣Q  5:♠10")."""
    return [(int(n), card) for n, card in NUMBERED_CARD.findall(text)]


def is_game_over(message: IrcMessage) -> bool:
    return message.command == "PRIVMSG" and GAME_OVER.search(message.text) is not None


def is_prompt(message: IrcMessage, me: IrcClient) -> bool:
    """A prompt NOTICE for ``me``."""
    return (
        message.command == "NOTICE"
        and message.nick == BOT
        and message.target.lower() == me.nick.lower()
        and ("Your turn:" in message.text or "Healthy or reservation?" in message.text)
    )


def cue(message: IrcMessage, me: IrcClient, channel: str = CHANNEL) -> str | None:
    """What the bot asks of ``me`` with this message: ``"reservation"``, ``"turn"`` (a
    prompt with the legal cards), ``"lead"`` (a channel line naming me to lead), or None."""
    if message.nick != BOT:
        return None
    text = message.text
    if is_prompt(message, me):
        return "turn" if "Your turn:" in text else "reservation"
    if message.command != "PRIVMSG" or message.target.lower() != channel.lower():
        return None
    nick = re.escape(me.nick)
    if re.search(rf"(?:^|· ){nick}: healthy or reservation\?", text):
        return "reservation"
    if GAME_OVER.search(text):
        return None
    winners = re.findall(r"— (\S+) takes it", text)
    leads = re.search(rf"(?:^|· ){nick} leads\.", text)
    if leads or (winners and winners[-1] == me.nick):
        return "lead"
    return None


def own_nicks(me: IrcClient) -> set[str]:
    """The nicks ``me`` had (its NICK changes, followed back from the current one)."""
    mine = {me.nick}
    for message in reversed(me.messages):
        if message.command == "NICK" and message.text in mine:
            mine.add(message.nick)
    return mine


TRICK = re.compile(r"(?:Trick|Stich) \d+: (.*?) — ")


@dataclass
class Hand:
    """The cards a scripted player holds (in the bot's display order): the last hand NOTICE
    less the cards the trick lines show it played since."""

    cards: list[str] = field(default_factory=list)
    shown: list[str] = field(default_factory=list)
    """The hand when the bot last showed it (a hand or a prompt): the bot counts a card
    number in that hand, so the numbers a player read stay true after he played."""

    def update(self, message: IrcMessage, me: IrcClient) -> None:
        if message.nick != BOT:
            return
        if message.command == "NOTICE" and "Your hand:" in message.text:
            part = message.text.split("Your hand:", 1)[1].split(" · ")[0]
            self.cards = [card for _, card in numbered_cards(part)]
            self.shown = list(self.cards)
        elif message.command == "NOTICE" and "Your turn:" in message.text:
            self.shown = list(self.cards)
        elif message.command == "PRIVMSG":
            for trick in TRICK.finditer(message.text):
                for play in trick[1].split(", "):
                    who, _, card = play.rpartition(" ")
                    if who in own_nicks(me) and card in self.cards:
                        self.cards.remove(card)


async def play_until(
    client: IrcClient,
    finished: Callable[[IrcMessage], bool],
    *,
    style: int,
    rng: random.Random,
    rename_after: int | None = None,
    before_answer: Callable[[int], Awaitable[None]] | None = None,
    timeout: float = 20.0,
    since: int = 0,
    on_turn: Callable[[str, IrcMessage], None] | None = None,
    channel: str = CHANNEL,
) -> list[str]:
    """Answer every turn the bot gives until ``finished`` matches; returns the texts that
    gave the turns (prompts and cue lines).

    ``style`` picks how the player answers: 0 with the card's number alone in the channel
    (``5``), 1 with the card alone (``♣Q``), 2 with ``!play 5``, 3 with ``!play ♣Q`` in a
    private message to the bot. ``on_turn(kind, message)`` is told of every turn.
    """
    prompts: list[str] = []
    hand = Hand()
    for message in client.messages[:since]:
        hand.update(message, client)
    cursor = since
    while True:
        message = await client.wait_for(
            lambda m: hand.update(m, client) or cue(m, client, channel) is not None or finished(m),
            timeout,
            since=cursor,
        )
        cursor = client.messages.index(message, cursor) + 1
        kind = cue(message, client, channel)
        if kind is not None and on_turn is not None:
            on_turn(kind, message)
        if kind is None or finished(message):
            return prompts
        prompts.append(message.text)
        if rename_after is not None and len(prompts) == rename_after:
            await client.rename(client.nick + "_x")
        if before_answer is not None:
            await before_answer(len(prompts))
        target = BOT if style == 3 else channel
        if kind == "reservation":
            await client.say(target, "!healthy")
            continue
        if kind == "turn":
            cards = numbered_cards(message.text.split("Your turn:", 1)[1].split(" — ")[0])
        else:
            if not hand.cards:  # a new client (it reconnected): ask for the hand
                mark = len(client.messages)
                await client.say(BOT, "!hand")
                got = await client.wait_for(lambda m: "Your hand:" in m.text, timeout, since=mark)
                hand.update(got, client)
            # a lead: the cards held, numbered as the bot last showed the hand
            cards = [(hand.shown.index(card) + 1, card) for card in hand.cards]
        assert cards, (message.text, hand.cards)
        number, card = rng.choice(cards)
        answer = [str(number), card, f"!play {number}", f"!play {card}"][style]
        await client.say(target, answer)
