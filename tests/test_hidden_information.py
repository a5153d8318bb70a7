"""Hidden information and seating trust: what nobody may learn, and who may sit or change what."""

from __future__ import annotations

import csv
import io
import json
import random
from typing import Any

import pytest

from dokobot.engine.cards import CLUB_QUEENS, card_ascii
from dokobot.engine.game import Game, hands_from_kinds
from dokobot.engine.notation import parse_cards
from dokobot.engine.observation import observe, public_parties
from dokobot.engine.types import HEALTHY, RESERVATION, GameType, Party, Phase
from dokobot.host import table as table_module
from dokobot.host.events import Event, Input, Private, Public
from dokobot.host.router import Router
from dokobot.host.table import Table

NAMES = ("anna", "ben", "carl", "dora")


def _inp(name: str, text: str, *, admin: bool = False, dm: bool = False) -> Input:
    return Input("" if dm else "chan", f"u:{name}", name, text, dm=dm, admin=admin)


def _seated(seed: int | None = 1) -> Router:
    r = Router(seed=seed)
    for n in NAMES:
        r.handle(_inp(n, "/join"))
    return r


def _dealt_healthy(r: Router) -> tuple[Table, Game]:
    """Deal at the seated table of ``r``; everybody says healthy."""
    t = r.tables["chan"]
    r.handle(_inp("anna", "/start"))
    game = t.game
    assert game is not None
    while game.phase is Phase.RESERVATIONS:
        r.handle(_inp(t.seats[game.turn].name, "/healthy"))
    return t, game


def _texts(events: list[Event], cls: type = Public) -> list[str]:
    return [e.text for e in events if isinstance(e, cls)]


def _errors(events: list[Event]) -> list[str]:
    return [e.text for e in events if isinstance(e, Private) and e.kind == "error"]


def _silent_wedding_deal() -> list[int]:
    """anna holds both ♣Q; the rest of the deck in order."""
    deck = [k for k in range(24) for _ in range(2)]
    cq = parse_cards("CQ")[0]
    rest = [k for k in deck if k != cq]
    kinds = [[cq, cq, *rest[:10]], rest[10:22], rest[22:34], rest[34:46]]
    return hands_from_kinds(kinds)


def _play_until_club_queen(r: Router) -> None:
    t = r.tables["chan"]
    game = t.game
    assert game is not None
    while game.phase is Phase.RESERVATIONS:
        r.handle(_inp(t.seats[game.turn].name, "/healthy"))
    played = 0
    while not played:
        seat = game.turn
        legal = game.legal_actions()
        queens = [c for c in legal if (1 << c) & CLUB_QUEENS]
        card = queens[0] if queens else legal[0]
        r.handle(_inp(t.seats[seat].name, f"/play {card_ascii(card)}"))
        played = len(queens)


def test_table_view_does_not_tell_a_silent_wedding() -> None:
    """A played ♣Q makes its player public Re in a silent wedding exactly as in a normal
    game (the view used to say nothing in a silent wedding, which told the table)."""
    r = _seated()
    t = r.tables["chan"]
    t.set_next_deal(_silent_wedding_deal())
    r.handle(_inp("anna", "/start"))
    _play_until_club_queen(r)
    assert t.game is not None and t.game.game_type is GameType.SILENT_WEDDING
    view = "\n".join(_texts(r.handle(_inp("ben", "/table")), Private))
    assert "Known parties: anna Re" in view
    # ...and the engine's answer is the same for every view.
    assert public_parties(t.game)[0] is Party.RE
    assert observe(t.game, 1).parties[0] is Party.RE


def test_public_parties_two_re_make_the_others_kontra() -> None:
    r = _seated(seed=5)
    t, game = _dealt_healthy(r)
    while game.phase is Phase.PLAYING and game.game_type is GameType.NORMAL:
        public = public_parties(game)
        if sum(p is Party.RE for p in public) == 2:
            assert all(p is not None for p in public)
            assert public == [game.party_of(s) for s in range(4)]
            return
        r.handle(_inp(t.seats[game.turn].name, f"/play {card_ascii(game.legal_actions()[0])}"))
    pytest.fail("both ♣Q were never played in seed 5's first game")


def test_unseeded_tables_deal_from_the_csprng_and_journal_no_seed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    drawn: list[int] = []

    def randbits(k: int) -> int:
        drawn.append(1000 + len(drawn))
        return drawn[-1]

    seeds: list[int] = []

    def factory(level: str, seed: int, duel: bool) -> Any:
        seeds.append(seed)
        from dokobot.ai import make_player

        return make_player("random", seed=seed)

    monkeypatch.setattr(table_module.secrets, "randbits", randbits)
    r = Router(bot_factory=factory)
    r.handle(_inp("anna", "/join"))
    for _ in range(3):
        r.handle(_inp("anna", "/join bot random"))
    t = r.tables["chan"]
    assert t.seed is None
    r.handle(_inp("anna", "/start"))
    assert drawn == [1000], "the deal's seed came from the CSPRNG"
    game = t.game
    assert game is not None
    while game.phase is not Phase.FINISHED:
        if r.bot_step("chan") is None:
            legal = game.legal_actions()[0]
            r.handle(_inp("anna", "/healthy" if legal >= 48 else f"/play {card_ascii(legal)}"))
    assert seeds and set(seeds) <= set(drawn[1:]), "computer players' seeds too"
    assert not any(rec.kind == "seed" for rec in t.journal)
    assert any(rec.kind == "deal" for rec in t.journal), "the deal itself is kept"


def test_two_unseeded_tables_deal_differently() -> None:
    hands = []
    for _ in range(2):
        r = _seated(seed=None)
        r.handle(_inp("anna", "/start"))
        game = r.tables["chan"].game
        assert game is not None
        hands.append(game.start_hands)
    assert hands[0] != hands[1]


def test_score_csv_of_an_aborted_game_shows_no_parties() -> None:
    r = _seated()
    t = r.tables["chan"]
    t.set_next_deal(_silent_wedding_deal())
    r.handle(_inp("anna", "/start"))
    game = t.game
    assert game is not None
    while game.phase is Phase.RESERVATIONS:
        r.handle(_inp(t.seats[game.turn].name, "/healthy"))
    for name in NAMES[:3]:
        r.handle(_inp(name, "/abort"))
    assert not t.running
    text = "\n".join(_texts(r.handle(_inp("ben", "/score csv")), Private))
    row = next(row for row in csv.DictReader(io.StringIO(text)) if row["row"] == "game")
    assert row["cancelled"] == "1"
    assert row["re"] == row["kontra"] == row["declarer"] == ""
    assert "silent" not in text
    rec = t.finished[-1]
    assert (rec.type, rec.declarer, rec.re, rec.kontra) == ("normal", None, [], [])
    assert rec.as_json()["re"] == [] and rec.as_json()["type"] == "normal"


@pytest.mark.parametrize("text", ["/score ²", "/play ²", "²", "/option stake ⁸", "/play ٣x"])
def test_superscript_digits_are_refused_clearly(text: str) -> None:
    r = _seated()
    t, game = _dealt_healthy(r)
    if text.startswith("/option"):
        game.phase = Phase.FINISHED  # between games
    before = (list(t.journal), game.hands[:], t.options)
    who = t.seats[game.turn].name
    events = r.handle(_inp(who, text))
    errors = _errors(events)
    assert not any("went wrong" in e or "internal" in e.lower() for e in errors), errors
    if text != "²":
        assert errors, "a refusal always answers"
    assert (list(t.journal), game.hands[:], t.options) == before


def test_last_trick_after_a_player_left_between_games() -> None:
    r = _seated()
    t, game = _dealt_healthy(r)
    while game.phase is not Phase.FINISHED:
        r.handle(_inp(t.seats[game.turn].name, f"/play {card_ascii(game.legal_actions()[0])}"))
    r.handle(_inp("dora", "/leave"))
    assert len(t.seats) == 3
    events = r.handle(_inp("anna", "/last"))
    assert not _errors(events)
    assert any("Last trick" in x for x in _texts(events, Private))


def test_owner_who_leaves_hands_the_table_on() -> None:
    r = _seated()
    t = r.tables["chan"]
    assert t.owner == "u:anna"
    r.handle(_inp("anna", "/start"))
    events = r.handle(_inp("anna", "/leave"))  # a stand-in takes the seat
    assert t.owner == "u:ben"
    assert any("ben owns the table" in x for x in _texts(events))


def test_a_table_without_people_takes_options_only_from_admins() -> None:
    r = Router(seed=1)
    r.handle(_inp("anna", "/join"))
    r.handle(_inp("anna", "/leave"))
    t = r.tables["chan"]
    assert t.owner is None
    events = r.handle(_inp("mallory", "/option stake 5"))
    assert _errors(events) and t.options.stake == 1
    r.handle(_inp("root", "/option stake 5", admin=True))
    assert t.options.stake == 5


def test_lookalike_names_cannot_both_sit() -> None:
    r = Router(seed=1)
    r.handle(_inp("anna", "/join"))
    events = r.handle(Input("chan", "u:evil", "ANNA\u200b", "/join"))
    assert any("already seated" in e for e in _errors(events))
    events = r.handle(Input("chan", "u:evil2", "\uff41\uff4e\uff4e\uff41", "/join"))
    assert _errors(events)
    assert r.tables["chan"].names() == ["anna"]


def test_replace_cannot_make_two_seats_of_one_name() -> None:
    r = Router(seed=1)
    for n in ("anna", "ben"):
        r.handle(_inp(n, "/join"))
    r.handle(_inp("anna", "/join bot"))
    r.handle(_inp("anna", "/join bot"))
    t = r.tables["chan"]
    assert t.names() == ["anna", "ben", "Bot1", "Bot2"]
    events = r.handle(Input("chan", "u:x", "Bot2", "/replace Bot1"))
    assert any("already seated" in e for e in _errors(events))
    assert t.names() == ["anna", "ben", "Bot1", "Bot2"]
    # Taking the seat of the computer player of the same name is fine.
    r.handle(Input("chan", "u:x", "Bot2", "/replace Bot2"))
    assert t.names() == ["anna", "ben", "Bot1", "Bot2"] and not t.seats[3].is_bot


def test_reprs_hold_no_hidden_cards_or_seeds() -> None:
    r = _seated(seed=123456)
    t = r.tables["chan"]
    events = r.handle(_inp("anna", "/start"))
    game = t.game
    assert game is not None and t.seed is not None
    hand_texts = [e.text.split(": ", 1)[1] for e in events
                  if isinstance(e, Private) and e.kind == "hand"]  # fmt: skip
    text = repr(t) + repr(events) + repr(observe(game, 0))
    assert str(t.seed) not in text
    assert "!deal" not in text
    for h in game.hands:
        assert str(h) not in text
    for hand in hand_texts:
        assert hand not in text


def test_export_of_an_aborted_game_shows_a_cover_deal_and_replays() -> None:
    """An aborted game's unplayed cards never reach an export: its deal is replaced by one
    that agrees with what was public (cards played, calls) and replays the same way."""
    from dokobot.engine.cards import cards_of
    from dokobot.engine.notation import parse_cards
    from dokobot.host.replay import Replayer

    r = _seated(seed=9)
    t, game = _dealt_healthy(r)
    for _ in range(6):
        r.handle(_inp(t.seats[game.turn].name, f"/play {card_ascii(game.legal_actions()[0])}"))
    real = list(game.start_hands)
    played = [0, 0, 0, 0]
    for leader, cards, _ in [*game.tricks, (game.leader, tuple(game.trick), -1)]:
        for i, c in enumerate(cards):
            played[(leader + i) % 4] |= 1 << c
    for name in NAMES[:3]:
        r.handle(_inp(name, "/abort"))
    assert not t.running
    r.handle(_inp("anna", "/start"))
    g2 = t.game
    assert g2 is not None
    while g2.phase is not Phase.FINISHED:
        legal = g2.legal_actions()[0]
        text = "/healthy" if g2.phase is Phase.RESERVATIONS else f"/play {card_ascii(legal)}"
        r.handle(_inp(t.seats[g2.turn].name, text))
    export = "\n".join(_texts(r.handle(_inp("ben", "/export")), Private))
    deal = next(line for line in export.splitlines() if line.startswith("!deal"))
    shown = {}
    for part in deal[len("!deal ") :].split(";"):
        name, _, cards = part.strip().partition("=")
        shown[name] = parse_cards(cards)
    for seat, name in enumerate(NAMES):
        assert len(shown[name]) == 12
        assert all((c >> 1) in shown[name] for c in cards_of(played[seat])), "played cards"
    real_kinds = [sorted(c >> 1 for c in cards_of(h)) for h in real]
    assert [sorted(shown[n]) for n in NAMES] != real_kinds, "the real deal is not exported"
    rep = Replayer()
    rep.run_text(export)
    assert rep.results() == [rec.as_json() for rec in t.finished]


# ------------------------------------------------------- aborted poverty games: the cover


def _poverty_dealt(rng: random.Random) -> tuple[Any, list[int]]:
    """A table with poverty on, dealt at random by ``rng`` so that dora (seat 3) holds at
    most three trumps, and started: the replayer and the start hands."""
    from dokobot.engine.game import _NORMAL_TRUMPS
    from dokobot.host.replay import Replayer
    from dokobot.host.table import sorted_hand

    trumps = [k for k in range(24) if _NORMAL_TRUMPS >> (2 * k) & 1]
    plain = [k for k in range(24) if k not in trumps]
    poor = rng.sample(trumps * 2, rng.randrange(4))
    poor += rng.sample(plain * 2, 12 - len(poor))
    rest = [k for k in range(24) for _ in range(2)]
    for k in poor:
        rest.remove(k)
    rng.shuffle(rest)
    hands = hands_from_kinds([rest[:12], rest[12:24], rest[24:], poor])
    deal = "!deal " + "; ".join(
        f"{n}=" + " ".join(card_ascii(c) for c in sorted_hand(None, h))
        for n, h in zip(NAMES, hands, strict=True)
    )
    rep = Replayer()
    lines = [*(f"{n}: /join" for n in NAMES), "anna: /option poverty on", "!dealer carl"]
    rep.run_text("\n".join([*lines, deal, "anna: /start"]))
    return rep, hands


def _poverty_game(seed: int) -> tuple[Any, list[int]]:
    """A table with poverty on where dora (seat 3) is poor, played at random up to a random
    point (in the exchange or the card play) and aborted (or nobody takes). Returns the
    replayer and the real start hands."""
    from dokobot.engine.types import DECLARE_POVERTY, DECLINE, HEALTHY, RESERVATION, TAKE
    from dokobot.host.table import command_for

    rng = random.Random(seed)
    rep, hands = _poverty_dealt(rng)
    table = rep.table
    game = table.game
    assert game is not None
    taker = rng.choice([0, 1, 2, 2, -1])  # -1: nobody takes
    plays = rng.choice([0, 0, 1, 4, 9])
    stop = rng.randrange(8)  # how many exchange steps happen before an abort
    steps = 0
    while game.phase is not Phase.FINISHED:
        seat = game.turn
        name = NAMES[seat]
        if game.phase is Phase.RESERVATIONS:
            action = RESERVATION if seat == 3 else HEALTHY
        elif game.phase is Phase.DECLARATIONS:
            action = DECLARE_POVERTY
        elif game.phase is Phase.EXCHANGE:
            if steps >= stop and taker >= 0:
                break
            steps += 1
            legal = game.legal_actions()
            action = (TAKE if seat == taker else DECLINE) if TAKE in legal else rng.choice(legal)
        else:
            if plays == 0:
                break
            plays -= 1
            action = rng.choice(game.legal_actions())
        text = command_for(action, phase=rng.choice([game.phase, None]))
        rep.run_text(f"{name} (dm): {text}" if text.startswith("/give") else f"{name}: {text}")
    if table.running:
        rep.run_text("anna: /abort\nben: /abort\ncarl: /abort")
    assert not table.running and not rep.failures, rep.failures
    return rep, hands


def _kinds(text: str) -> list[int]:
    return sorted(parse_cards(text))


def _hidden_agreement(shown: dict[str, list[int]], real: list[int], played: list[int]) -> int:
    """How many unplayed cards (by kind) the shown deal gives the seat the real deal gives."""
    from collections import Counter

    from dokobot.engine.cards import cards_of

    total = 0
    for seat, name in enumerate(NAMES):
        known = Counter(c >> 1 for c in cards_of(played[seat]))
        a = Counter(shown[name]) - known
        b = Counter(c >> 1 for c in cards_of(real[seat])) - known
        total += sum((a & b).values())
    return total


def test_an_aborted_poverty_export_shows_no_passed_or_returned_card() -> None:
    """Over many aborted poverty games (taken or not, in the exchange or the card play): the
    export replays exactly, its gives are made up (they match the real gives no more often
    than chance) and its deal agrees with the real one on the unplayed cards no more than
    with the real deal of another game (chance), beyond the public cards."""
    from dokobot.engine.cover import _exchange_steps
    from dokobot.host.replay import Replayer, export_lines

    games = []
    for seed in range(60):
        rep, real = _poverty_game(seed)
        game = rep.table.finished[-1]
        lines = export_lines("replay", rep.table.journal)
        again = Replayer()
        again.run_lines(lines)
        assert not again.failures and again.results() == rep.results()
        deal = next(line for line in lines if line.startswith("!deal "))
        shown = {}
        for part in deal[len("!deal ") :].split(";"):
            name, _, cards = part.strip().partition("=")
            shown[name] = _kinds(cards)
        g = rep.table.game
        assert g is not None and game.cancelled and g.exchange is not None
        gives: list[str] = []
        real_gives: list[str] = []
        for seat, steps in zip((3, g.exchange.taker), _exchange_steps(g), strict=True):
            real_gives += [card_ascii(g.log[i][1]) for i in steps]
            mine = [line.split()[-1] for line in lines
                    if line.startswith(f"{NAMES[seat]}: /give ")
                    or line.startswith(f"{NAMES[seat]}: /play ")]  # fmt: skip
            gives += mine[: len(steps)]
        played = [0, 0, 0, 0]
        for leader, cards, _ in [*g.tricks, (g.leader, tuple(g.trick), -1)]:
            for i, c in enumerate(cards):
                played[(leader + i) % 4] |= 1 << c
        games.append((shown, gives, real_gives, real, played, g.exchange))
    same_gives = sum(a == b for _, gs, rs, *_ in games for a, b in zip(gs, rs, strict=True))
    n_gives = sum(len(rs) for _, _, rs, *_ in games)
    assert n_gives > 100
    assert same_gives / n_gives < 0.2, (same_gives, n_gives)  # the real ones: 1.0
    own = [_hidden_agreement(s, real, played) for s, _, _, real, played, _ in games]
    other = [
        _hidden_agreement(s, games[j][3], played)
        for i, (s, _, _, _, played, _) in enumerate(games)
        for j in range(len(games))
        if j != i
    ]
    assert sum(own) / len(own) < sum(other) / len(other) + 1.5, (own, other[:50])


@pytest.mark.parametrize("rules", ["house", "tournament"])
def test_every_game_ended_at_any_point_has_a_cover(rules: str) -> None:
    """Random games (reservations said often: weddings, poverties, throw-ins, several solos)
    stopped at any point: a cover is found and replays to the same public state. Seats
    asked to declare after a solo could throw in (the table saw them asked): so can theirs."""
    from dokobot.engine.cover import cover
    from dokobot.engine.rules import Rules
    from dokobot.engine.types import RESERVATION

    house = Rules(poverty=True, throw_in=True, piglets=True)
    for seed in range(1200):
        rng = random.Random(seed)
        g = Game.deal(house if rules == "house" else Rules(tournament=True), 3, seed=seed)
        for _ in range(rng.randrange(60)):
            if g.phase is Phase.FINISHED:
                break
            legal = g.legal_actions()
            reserve = RESERVATION in legal and rng.random() < 0.6
            g.play(g.turn, RESERVATION if reserve else rng.choice(legal))
        hands, _ = cover(g, random.Random(seed))
        assert sum(h.bit_count() for h in hands) == 48


def _poverty_played_out(seed: int) -> Any:
    """A table with poverty on where dora (seat 3) is poor, someone takes, and the game is
    played to its end at random: the replayer."""
    from dokobot.engine.types import DECLARE_POVERTY, DECLINE, HEALTHY, RESERVATION, TAKE
    from dokobot.host.table import command_for

    rng = random.Random(seed)
    rep, _ = _poverty_dealt(rng)
    game = rep.table.game
    assert game is not None
    taker = rng.randrange(3)
    while game.phase is not Phase.FINISHED:
        seat = game.turn
        if game.phase is Phase.RESERVATIONS:
            action = RESERVATION if seat == 3 else HEALTHY
        elif game.phase is Phase.DECLARATIONS:
            action = DECLARE_POVERTY
        else:
            legal = game.legal_actions()
            action = (TAKE if seat == taker else DECLINE) if TAKE in legal else rng.choice(legal)
        text = command_for(action, phase=game.phase)
        rep.run_text(f"{NAMES[seat]} (dm): {text}" if text.startswith("/give") else
                     f"{NAMES[seat]}: {text}")  # fmt: skip
    assert not rep.failures, rep.failures
    return rep


@pytest.mark.long
def test_a_review_tells_nobody_the_hands_of_a_poverty() -> None:
    """The review of a poverty played to its end: its stored record holds no hand; the
    reservations of the poor player and the taker (whose start hands stay secret: the cards
    passed and given back) are never on the web page or in the channel's summary; every
    card the review view names was played by that seat."""
    from dokobot.ai.review import Mistake
    from dokobot.engine.types import DECLARE_SOLO, Solo
    from dokobot.host import archive, reviews
    from dokobot.web import review_view

    rep = _poverty_played_out(4)
    table = rep.table
    game = table.game
    assert game is not None and game.exchange is not None and game.exchange.taker >= 0
    poor, taker = game.exchange.poor, game.exchange.taker
    other = next(s for s in range(4) if s not in (poor, taker))
    rec = table.finished[-1]
    users = tuple(s.user for s in table.seats)
    job = reviews.job_of(rec.number, game, users, [s.name for s in table.seats])
    record = reviews.compute(job, 0.01, fixed=True)
    assert set(json.loads(record)) == {"v", "game", "users", "names", "decisions", "mistakes",
                                       "seconds"}  # fmt: skip
    found = reviews.GameReview.from_json(record)
    assert found is not None and sorted(found.decisions) == [0, 1, 2, 3]
    for m in found.mistakes:  # what the real review found is public exactly by the rule
        assert (m.index not in found.hidden) == reviews.is_public(game, m)
    solo = DECLARE_SOLO + Solo.CLUBS
    said = {
        seat: i for i, (seat, action) in enumerate(game.log) if action in (HEALTHY, RESERVATION)
    }
    assert game.log[said[other]] == (other, HEALTHY)  # public: a review may say it
    made = {
        "poor": Mistake(said[poor], poor, 0, "reservation", None, solo, 1.9),
        "taker": Mistake(said[taker], taker, 0, "reservation", None, solo, 1.8),
        "other": Mistake(said[other], other, 0, "reservation", None, solo, 1.7),
        "card": Mistake(903, poor, 12, "card", game.tricks[11][1][(poor - game.tricks[11][0]) % 4],
                        None, 0.7),
    }  # fmt: skip
    assert [reviews.is_public(game, m) for m in made.values()] == [False, False, True, True]
    found.mistakes = [m for m in found.mistakes if m.kind != "reservation"] + list(made.values())
    found.hidden = frozenset(m.index for m in found.mistakes if not reviews.is_public(game, m))
    finished = archive.finished_game(table, rec).with_id(1)
    view = review_view(finished, found, "en")
    shown = [m["text"] for m in view["review"]["before"]]
    shown += [p["mistake"]["text"] for tr in view["tricks"] for p in tr["plays"] if "mistake" in p]
    shown += [m["text"] for tr in view["tricks"] for m in tr["notes"]]
    reserved = [t for t in shown if "reservation" in t]
    assert reserved == [f"{NAMES[other]}, reservation: Healthy instead of clubs solo (−1.7)"]
    text = reviews.summary("en", found, None)
    solo_instead = "Healthy instead of clubs solo"
    assert f"{solo_instead} (−1.9)" not in text and f"{solo_instead} (−1.8)" not in text
    assert f"{solo_instead} (−1.7)" in text
    played = [set[int]() for _ in range(4)]
    for leader, cards, _ in finished.tricks:
        for i, c in enumerate(cards):
            played[(leader + i) % 4].add(c >> 1)
    for m in found.mistakes:
        if m.index not in found.hidden and m.kind == "card":
            assert m.played is not None and m.played >> 1 in played[m.seat]
            assert m.better is None or m.better >> 1 in played[m.seat]
