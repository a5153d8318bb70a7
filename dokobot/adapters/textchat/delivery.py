"""The host's events as a text chat's lines: rendered, packed into the line budget, queued in
the outbox's lanes, and the prompts tracked until they are read.

* A line budget (one connection carries every table at about one line per second): the room
  lines of one batch are packed into as few lines of at most the chat's ``max_line_bytes``
  as fit (:data:`LEFT_OUT` kinds are not said); one person's events of a batch likewise. A
  prompt whose turn a room line of the same batch names (:data:`CUES`: a trick's winner
  leads) is not sent: that line is it. A hand dealt waits for its player's next prompt and
  goes in the same line. The choices a text does not show are appended as the commands to
  type (``[!re]``), and every command a text suggests is written with the chat's sign.
* Order and fairness are the :class:`~dokobot.adapters.textchat.outbox.Outbox`'s: a person's
  answer to his own command takes the next free line; then the room lines and prompts, then
  notes, then long answers; a prompt goes after the room line of the move before it.
* What lost its meaning while it waited is dropped (the host's ``decision`` against the
  event's ``marker``; a person's session: he left since). The host's turn timer starts only
  when a prompt (or the room line that is it) was really sent (``prompt_sent``).
* Prompts are never lost: a prompt for somebody who is not present is held back, and when he
  is seen again (:meth:`Delivery.resend`) the host's ``pending_prompts`` are sent again
  unless this connection sent that prompt already.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from dokobot.host.contract import Host
from dokobot.host.events import Event, Private, Public
from dokobot.host.i18n import command_hints

from ... import bounded
from ...bounded import Bounded
from .exports import Exports
from .lines import pack_lines, score_lines
from .outbox import ANSWER, BULK, GAME, NOTES, Outbox, Unit
from .platform import TextPlatform
from .typed import with_choices

log = logging.getLogger("dokobot.adapters.textchat")

PROMPT_KINDS = ("turn", "reservation")
"""Kinds of private events that ask a player to act (the turn timer starts when one left)."""

STRICT_KINDS = frozenset({*PROMPT_KINDS, "reminder", "hint"})
"""Private events about one decision: dropped unsent once that decision is past."""

LEFT_OUT = frozenset({"card", "detail", "score", "ask", "healthy"})
"""Kinds of room lines a text chat leaves out: each card (the trick line names all four, the
prompts carry the trick so far), the value items of a result and the score list after a
game (``!score N`` and ``!score`` show them on request), who is asked for a reservation
(the prompt asks him) and each "healthy" (the contract line says it; a reservation is said
at once)."""

CUES = frozenset({"trick", "lead"})
"""Kinds of room lines that name the player who must act next: that player's prompt is
not sent in a line of its own (a trick's winner leads; who leads the first trick)."""

PACK_AFTER = 4
"""An answer of up to this many (packed) lines takes the next free slot; a longer one is
sent when nothing else waits (or after its :data:`~dokobot.adapters.textchat.outbox.WAIT_LIMIT`)."""


class Delivery:
    """Turns batches of the host's events into the outbox's units (see the module docs)."""

    def __init__(
        self,
        host: Host,
        platform: TextPlatform,
        outbox: Outbox,
        exports: Exports | None = None,
    ) -> None:
        self.host = host
        self.platform = platform
        self.outbox = outbox
        self.exports = exports
        self.connections = 0
        """How often the chat connected (1 + reconnects)."""
        self.prompted: Bounded[str, tuple[str, int | None]] = Bounded(bounded.CAPS.users)
        """user id -> (text of the prompt queued for them, connection it went out on)."""
        self.sessions: Bounded[str, int] = Bounded(bounded.CAPS.users)
        """user id -> how often they left: what was queued for an earlier session is not
        delivered into the next one."""
        self.hands: Bounded[str, tuple[Private, int]] = Bounded(bounded.CAPS.users)
        """user id -> (the hand dealt to him, session): it goes with his next prompt."""
        self.shown: Bounded[str, tuple[int, ...]] = Bounded(bounded.CAPS.users)
        """user id -> the hand (display order) in the last line sent to him that showed it:
        a card number he types means a card of that hand."""

    # -- what the chat tells -------------------------------------------------------------

    def connected(self) -> None:
        """A new connection is up: prompts that went out on an earlier one may have been
        missed (they go again when their player is seen); those still queued go on this one."""
        self.connections += 1
        for user in [u for u, p in self.prompted.items() if p[1] is not None]:
            del self.prompted[user]

    def gone(self, user: str) -> None:
        """``user`` left (every room, or the one of his table): a prompt sent before is
        missed, and nothing queued for him before is delivered."""
        self.prompted.pop(user, None)
        self.sessions[user] = self.sessions.get(user, 0) + 1
        self.outbox.kick()

    def resend(self, user: str, *, again: bool = False) -> None:
        """``user`` is here: send the hand and prompt waiting for him, unless this connection
        has sent (or queued) that prompt already; ``again``: even then."""
        if again:
            self.prompted.pop(user, None)
        events = self.host.pending_prompts(user)
        prompts = [e for e in events if isinstance(e, Private) and e.kind in PROMPT_KINDS]
        if not prompts or self.prompted.get(user, ("",))[0] == prompts[-1].text:
            return  # nothing waits, or this prompt is queued or was sent on this connection
        log.info("%s sending a pending prompt again", self.platform.prefix)
        self.batch(events)  # the hand, then the prompt

    def say(self, channel: str, text: str) -> None:
        """Queue the chat's own ``text`` for the room of ``channel`` (packed)."""
        room = self.platform.room(channel)
        if room is not None:
            self.outbox.put(self._unit(room, self._pack(text)))

    # -- events to units -------------------------------------------------------------------

    def batch(self, events: Sequence[Event]) -> None:
        """Queue one batch of the host's events (the answer to one input, or one move of a
        computer player) as few messages as possible (see the module docs)."""
        publics: dict[str, list[Public]] = {}
        privates: dict[str, list[Private]] = {}
        for event in events:
            if isinstance(event, Public) and self.platform.room(event.channel) is not None:
                publics.setdefault(event.channel, []).append(event)
            elif isinstance(event, Private) and event.user.startswith(self.platform.prefix):
                privates.setdefault(event.user, []).append(event)
        room_units: dict[str, Unit] = {}
        cues: dict[str, Unit] = {}
        for channel, items in publics.items():
            shown = [e for e in items if e.kind not in LEFT_OUT]
            room = self.platform.room(channel)
            if not shown or room is None:
                continue
            unit = self._unit(room, self._pack("\n".join(e.text for e in shown)))
            self.outbox.put(unit)
            room_units[channel] = unit
            if any(e.kind in CUES for e in shown):
                cues[channel] = unit
        for user, mine in privates.items():
            self._private(user, mine, room_units, cues)

    def _private(
        self,
        user: str,
        events: list[Private],
        room_units: dict[str, Unit],
        cues: dict[str, Unit],
    ) -> None:
        """Queue one person's events of a batch: answers to his own command first (the next
        free slot), then notes, then a prompt after the room line of the move that made
        it his turn. A hand dealt (or sorted anew) waits for its player's next prompt and
        goes in the same line. A prompt whose turn the room line names (a trick taken,
        who leads) is not sent at all: that line is it."""
        session = self.sessions.get(user, 0)
        asked = any(e.kind in STRICT_KINDS for e in events)
        answers = [
            e for e in events if e.reply and e.kind not in PROMPT_KINDS
            and not (asked and e.kind == "hand")
        ]  # fmt: skip
        hands = [e for e in events if e.kind == "hand" and e not in answers]
        notes = [e for e in events if not e.reply and e.kind not in {*STRICT_KINDS, "hand"}]
        strict = [e for e in events if e not in answers and e not in notes and e not in hands]
        for event in answers:
            if event.kind == "export" and self.exports is not None:
                link = self.exports.link(event)
                if link is not None:
                    self._put(user, [link], ANSWER, event, session)
                    continue
            if event.kind == "score":
                lines = score_lines(event.text, self.platform.max_line_bytes)
            else:
                lines = self._pack(self._choices(event))
            lane = ANSWER if len(lines) <= PACK_AFTER else BULK
            self._put(user, lines, lane, event, session)
        if notes:
            text = "\n".join(self._choices(e) for e in notes)
            self._put(user, self._pack(text), NOTES, notes[-1], session)
        if hands:
            self.hands[user] = (hands[-1], session)
        if not strict:
            return
        self.outbox.promote(user)  # his notes before his turn
        held = self.hands.pop(user, None)
        hand = held[0] if held is not None and held[1] == session else None
        if hand is not None and (hand.marker or (0,))[0] != (strict[-1].marker or (0,))[0]:
            hand = None  # a hand of an earlier game
        prompt = next((e for e in strict if e.kind in PROMPT_KINDS), None)
        cue = cues.get(prompt.channel) if prompt is not None else None
        if prompt is not None and cue is not None and len(strict) == 1:
            self.prompted[user] = (prompt.text, None)
            cue.on_sent = _chain(cue.on_sent, self._prompt_callback(prompt.channel, user))
            lost = self._prompt_callback(prompt.channel, user, lost=True)
            cue.on_drop = _chain(cue.on_drop, lost)
            if hand is not None:  # his turn is said in the room; his hand comes now
                unit = self._put(user, self._pack(hand.text), GAME, hand, session)
                unit.after = cue
            return
        mine = [hand, *strict] if hand is not None else strict
        text = "\n".join(self._choices(e) for e in mine)
        unit = self._put(user, self._pack(text), GAME, strict[-1], session)
        unit.after = room_units.get(strict[-1].channel)
        if prompt is not None:
            self.prompted[user] = (prompt.text, None)
            unit.present_only = True
            unit.on_sent = _chain(unit.on_sent, self._prompt_callback(prompt.channel, user))
            unit.on_drop = self._prompt_callback(prompt.channel, user, lost=True)

    def _pack(self, text: str) -> list[str]:
        return pack_lines(text, self.platform.max_line_bytes)

    def _choices(self, event: Private) -> str:
        return with_choices(event.text, event.choices, event.lang, self.platform.sign)

    def _unit(self, target: str, lines: list[str]) -> Unit:
        """A unit whose lines suggest commands as players type them here (``/start`` ->
        ``!start``)."""
        return Unit(target, [command_hints(line, self.platform.sign) for line in lines])

    def _put(self, user: str, lines: list[str], lane: int, event: Private, session: int) -> Unit:
        verbatim = event.kind == "export"  # a record, not a text for people
        unit = Unit(
            user, lines if verbatim else self._unit(user, lines).lines, private=True,
            lane=lane, answer=lane in (ANSWER, BULK), valid=self._validity(event, session),
        )  # fmt: skip
        if event.hand and event.kind in ("hand", *PROMPT_KINDS):
            hand = event.hand

            def shown() -> None:
                self.shown[user] = hand

            unit.on_sent = shown
        self.outbox.put(unit)
        return unit

    def _validity(self, event: Private, session: int) -> Callable[[], bool]:
        """Whether ``event`` still means something: the person is in the same session (he did
        not leave since), a prompt, reminder or hint is still about the current decision,
        and anything else said during a game is still about the running game."""
        user, channel, marker, kind = event.user, event.channel, event.marker, event.kind
        decision = self.host.decision

        def valid() -> bool:
            if self.sessions.get(user, 0) != session:
                return False
            if marker is None or kind == "export":
                return True
            current = decision(channel)
            if kind in STRICT_KINDS:
                return bool(current == marker)
            return current is not None and current[0] == marker[0]

        return valid

    def _prompt_callback(
        self, channel: str, user: str, *, lost: bool = False
    ) -> Callable[[], None]:
        def done() -> None:
            if lost or not self.platform.present(user):
                self.prompted.pop(user, None)  # sent again when the player is seen
            else:
                entry = self.prompted.get(user)
                if entry is not None:
                    self.prompted[user] = (entry[0], self.connections)
            try:
                self.host.prompt_sent(channel, user)
            except Exception:
                log.exception("%s prompt_sent failed", self.platform.prefix)

        return done


def _chain(first: Callable[[], None] | None, then: Callable[[], None]) -> Callable[[], None]:
    if first is None:
        return then

    def both() -> None:
        first()
        then()

    return both
