"""Feed a replay script to a live, durable service line by line (crash tests, load tests).

``dokobot feed SCRIPT --store PATH [--from N]`` prints ``ACK N`` after line ``N`` (1-based)
is handled and durable. Killed at any moment and restarted with ``--from`` the line after
the last ``ACK``, it resumes every table from the store; the final results are those of an
uninterrupted run.

Exactly once: a kill can fall after a line is durable but before its ``ACK`` is printed.
Each line's journal records are therefore written together with a ``feed`` record naming the
line (one transaction); on a restart the lines up to the last such marker are skipped,
whatever ``--from`` says, so no line is applied twice (a second ``/play ♥10`` can be legal: a
player may hold both). Computer players that must move after a restart finish their moves
before the next line is fed, as they did before it in the uninterrupted run.

Only what the store holds is acknowledged: after each line the feed reads its marker back.
A line the store refused (a full disk, a table on hold) stops the feed with the reason and
exit status 1; nothing after it is fed. The marker also names the script (a digest of its
lines so far), so a store fed by another script is refused instead of silently skipping
its lines.
"""

from __future__ import annotations

import asyncio
import hashlib
import sys
from collections.abc import Sequence
from typing import TextIO

from .events import Private
from .journal import Record, decode_journal
from .replay import Replayer, ReplayError, results_jsonl
from .router import Router
from .service import Service, default_bot_factory

CHANNEL = "feed"
LEGACY_MARKER = "# feed "


def durable_line(journal: Sequence[Record]) -> tuple[int, str]:
    """The last script line whose effects are in ``journal`` (0: none), and the digest of
    the script up to it that its marker names ("" in markers of older versions).

    >>> durable_line([Record("feed", text="3 ab12"), Record("line", text="# feed 4"),
    ...               Record("cmd", name="anna", text="/join")])
    (4, '')
    """
    for rec in reversed(journal):
        text = rec.text
        if rec.kind == "line" and text.startswith(LEGACY_MARKER):
            text = text[len(LEGACY_MARKER) :]
        elif rec.kind != "feed":
            continue
        number, _, digest = text.partition(" ")
        if number.isdigit():
            return int(number), digest
    return 0, ""


def digests(lines: Sequence[str]) -> list[str]:
    """Per ``n``: a digest of the script's first ``n`` lines (``n`` from 0 on).

    >>> d = digests(["a", "b"]); len(d), d[1] == digests(["a", "c"])[1] != d[2]
    (3, True)
    """
    h = hashlib.sha256()
    out = [h.hexdigest()[:16]]
    for line in lines:
        h.update(line.encode("utf-8", "surrogateescape") + b"\n")
        out.append(h.hexdigest()[:16])
    return out


async def feed(
    service: Service,
    lines: Sequence[str],
    start: int = 1,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> bool:
    """Handle ``lines[start-1:]`` through ``service``, skipping lines already durable; print
    ``ACK n`` for each line the store holds (on ``out``, default standard output). False
    (the reason said on ``err``, default standard error) if the store refused a line (the
    feed stops there) or holds another script's lines."""
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    await service.load(CHANNEL)
    if CHANNEL in service.damaged:
        print(f"dokobot feed: the table's journal is damaged, so the table is on hold "
              f"({service.damaged[CHANNEL]}); nothing was fed", file=err)  # fmt: skip
        return False
    rep = Replayer(router=service.router, channel=CHANNEL)
    table = service.router.table(CHANNEL)
    for seat in table.seats:
        rep.users[seat.name] = seat.user
    sums = digests(lines)
    stored = service.store.load_journal(CHANNEL)
    try:
        done, digest = durable_line(decode_journal(stored))
    except ValueError as exc:
        print(f"dokobot feed: the table's journal is damaged: {exc}; nothing was fed", file=err)
        return False
    if done > len(lines) or (digest and digest != sums[done]):
        print(f"dokobot feed: the store holds the lines 1–{done} of another script; nothing "
              "was fed (feed this script into a store of its own)", file=err)  # fmt: skip
        return False
    known = len(stored)
    if not stored:  # the table is in the store from now on, whatever the first line does
        table.journal.append(Record("feed", text=f"0 {sums[0]}"))
        if not await service.persist(CHANNEL):
            print("dokobot feed: the store refused the first write; nothing was fed", file=err)
            return False
        known = len(service.store.load_journal(CHANNEL))
    await service.idle()  # computer players resumed by the restart move first
    if start <= done:
        print(f"dokobot feed: lines {start}–{done} are in the store already (fed before); "
              "they are not fed again", file=err)  # fmt: skip
    for lineno, raw in enumerate(lines, 1):
        if lineno < start:
            continue
        if lineno <= done:
            print(f"ACK {lineno}", file=out, flush=True)
            continue
        marker = f"{lineno} {sums[lineno]}"
        refusal = ""
        # written in the same transaction as the line's own journal entries
        await service.load(CHANNEL)
        if CHANNEL in service.damaged:
            refusal = f"the table is on hold, its journal is damaged: {service.damaged[CHANNEL]}"
        else:
            service.router.table(CHANNEL).journal.append(Record("feed", text=marker))
            line = raw.strip()
            if line.startswith("!"):
                rep.directive(lineno, line)
                await service.persist(CHANNEL)
            elif line and not line.startswith(("#", ">")):
                name, text, dm = rep.parse_input(lineno, line)
                events = await service.handle(rep.input_for(name, text, dm))
                refusal = next((e.text for e in events
                                if isinstance(e, Private) and e.kind == "error"), "")  # fmt: skip
                await service.idle()
            else:
                await service.persist(CHANNEL)
        new = service.store.load_journal(CHANNEL, known)
        known += len(new)
        if Record("feed", text=marker).encode() not in new:
            print(f"dokobot feed: line {lineno} was not stored ({refusal or 'see the log'}); "
                  f"nothing after it was fed. Feed again with --from {lineno} once the store "
                  "can take it", file=err)  # fmt: skip
            return False
        print(f"ACK {lineno}", file=out, flush=True)
    if done >= len(lines) and start <= len(lines):
        print("dokobot feed: every line of the script was in the store already; nothing "
              "was added", file=err)  # fmt: skip
    return True


def run_feed(script: str, store_path: str, start: int, json_out: bool) -> int:
    from ..store import open_store

    try:
        with open(script, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        print(f"dokobot feed: cannot read {script}: {exc.strerror}; nothing was fed",
              file=sys.stderr)  # fmt: skip
        return 2
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        print(f"dokobot feed: {script} is not UTF-8 text (byte {data[exc.start]:#04x} on line "
              f"{line}); save it as UTF-8. Nothing was fed", file=sys.stderr)  # fmt: skip
        return 2

    async def main() -> bool:
        router = Router(seed=0, bot_factory=default_bot_factory(fixed=True), table_seed=lambda _: 0)
        service = Service(router, open_store(store_path))
        try:
            await service.start()
            try:
                fed = await feed(service, lines, start)
            except ReplayError as exc:
                print(f"dokobot feed: {script}: {exc}", file=sys.stderr)
                return False
            table = router.tables.get(CHANNEL)
            if json_out and table is not None and fed:
                sys.stdout.write(results_jsonl([r.as_json() for r in table.all_games()]))
            return fed
        finally:
            await service.close()

    return 0 if asyncio.run(main()) else 1
