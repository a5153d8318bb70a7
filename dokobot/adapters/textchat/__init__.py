"""The text-chat layer: what every chat of lines (IRC, Matrix, a terminal) shares.

A text chat has no buttons and no live board: the host's neutral events become lines, and
people type commands. This layer does everything about that which does not depend on the
platform; an adapter adds only its connection, its ids and its people.

What a new text chat must provide is :class:`~.platform.TextPlatform` (subclass it, so
``mypy --strict`` checks every signature):

* ``prefix``: what its ids start with (``matrix:SERVER:``); ``sign``: how players start a
  command (``!``); ``max_line_bytes``: the longest line it takes;
* ``room(channel)``: the room of a channel id (None: not one of its rooms);
  ``address(user)``: where a private line for a person goes now (a nick, a direct room;
  None: he cannot be reached); ``present(user)``: whether he is in one of the bot's rooms;
* ``online()``: returns once connected; ``keeps(room, text)``: a room line held back instead
  of sent (False for most chats); ``send(line, to)``: send one line (True: sent; False: the
  connection went away, try again; raising gives it up).

And it drives a :class:`~.chat.TextChat` (``TextChat(host, platform, burst=, rate=)``):

* ``chat.serve(connect_loop)`` runs its connection beside the layer's workers;
  ``chat.deliver`` is (or is called by) the host's listener; ``chat.connected()`` after
  each (re)connection;
* for a line somebody wrote: ``text = chat.command(line, dm=...)`` and, when it is not
  None, ``chat.said(channel, user, name, text, dm=..., admin=...)``;
* ``chat.seen(user)`` when a person shows up (a prompt waiting for him is sent again),
  ``chat.gone(user)`` when he leaves, ``chat.named(user, name)`` when he has a (new)
  display name (kept in the store, the seat renamed in order with the inputs);
  ``chat.names()`` gives the stored names back after a restart;
* :func:`~.hosting.run_on_host` runs it for the command line (the listener chained, the
  host's life started and closed unless ``dokobot run`` runs it for several chats).

The modules, each with one job: :mod:`.typed` (commands as players type them: the sign,
bare cards, card numbers in the hand last seen, the compact help), :mod:`.lines` (the line
budget: cut and pack), :mod:`.delivery` (events to lines: what is left out, prompts and
reminders, hands with the next prompt, what is out of date), :mod:`.outbox` (the lanes and
the token bucket), :mod:`.sender` (the send loop), :mod:`.exports` (an export as a link),
:mod:`.backoff` (reconnect delays), :mod:`.guard` (a failure that must not stop the chat),
:mod:`.chat` (the core the platform drives), :mod:`.hosting` (its life beside the host).
"""

from .chat import TextChat
from .exports import Exports
from .hosting import run_on_host
from .outbox import OutLine
from .platform import TextPlatform

__all__ = ["Exports", "OutLine", "TextChat", "TextPlatform", "run_on_host"]
