"""Property tests: random legal games with random reservations, declarations and calls.

``python -m pytest tests/test_engine_props.py --slow`` runs many more examples.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import event, given
from hypothesis import strategies as st

from dokobot.engine import (
    CALL_BLACK,
    CALL_RE,
    DECLARE_SOLO,
    DECLARE_WEDDING,
    DEFAULT_RULES,
    HEALTHY,
    RESERVATION,
    TOURNAMENT_RULES,
    Game,
    GameType,
    IllegalAction,
    Phase,
    Rules,
    observe,
    score,
    shuffled_deck,
)
from dokobot.engine.cards import CLUB_QUEENS, POINTS
from dokobot.engine.order import TRUMP
from dokobot.engine.types import call_level

RULESETS = [
    DEFAULT_RULES,
    TOURNAMENT_RULES,
    Rules(lust_solo_leads=True),
    Rules(second_heart10_wins=True),
    Rules(tournament=True, lust_solo_leads=True, second_heart10_wins=True),
]
ALL_CALLS = list(range(CALL_RE, CALL_BLACK + 1))
NON_CARD = [HEALTHY, RESERVATION, DECLARE_WEDDING, *(DECLARE_SOLO + s for s in range(7))]


def state(g: Game) -> dict[str, Any]:
    """Every field of a game (lists copied), except the undo history."""
    out: dict[str, Any] = {}
    for name in Game.__slots__:
        if name == "_undo":
            continue
        v = getattr(g, name)
        out[name] = v[:] if isinstance(v, list) else v
    return out


@st.composite
def setups(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "seed": draw(st.integers(0, 2**63)),
        "rules": draw(st.sampled_from(RULESETS)),
        "dealer": draw(st.integers(0, 3)),
        "owed": draw(st.lists(st.booleans(), min_size=4, max_size=4)),
        "forced": draw(st.none() | st.none() | st.none() | st.integers(0, 3)),
        "p_reserve": draw(st.sampled_from([0.0, 0.1, 0.3, 0.7])),
        "p_call": draw(st.sampled_from([0.0, 0.05, 0.2, 0.5])),
    }


def new_game(s: dict[str, Any]) -> Game:
    return Game.deal(
        s["rules"], s["dealer"], s["seed"], mandatory_owed=s["owed"], forced_soloist=s["forced"]
    )


def choose(g: Game, rng: random.Random, p_reserve: float) -> int:
    acts = g.legal_actions()
    if g.phase is Phase.RESERVATIONS:
        # the holder of both ♣Q mostly announces his wedding
        wedding = g.hands[g.turn] & CLUB_QUEENS == CLUB_QUEENS and rng.random() < 0.5
        return RESERVATION if wedding or rng.random() < p_reserve else HEALTHY
    if acts[0] == DECLARE_WEDDING and rng.random() < 0.7:
        return DECLARE_WEDDING
    return rng.choice(acts)


def maybe_call(g: Game, rng: random.Random, p_call: float) -> None:
    if g.phase is not Phase.PLAYING or rng.random() >= p_call:
        return
    seat = rng.randrange(4)
    calls = g.legal_calls(seat)
    assert calls == [a for a in ALL_CALLS if g.problem(seat, a) is None]
    if not calls:
        return
    action = calls[0] if rng.random() < 0.6 else rng.choice(calls)
    party = g.party_of(seat)
    before = g.level[party]
    g.play(seat, action)
    assert g.level[party] == call_level(action) > before
    assert g.calls[-1] == (seat, action)


def check_turn(g: Game) -> None:
    """The legal actions of the player to move agree with problem() and are never empty."""
    turn = g.turn
    acts = g.legal_actions()
    assert acts, "no legal action while the game runs"
    if g.phase is Phase.PLAYING:
        legal = g.legal_cards()
        hand = g.hands[turn]
        assert legal and legal & ~hand == 0
        kinds = {c >> 1 for c in range(48) if legal >> c & 1}
        assert sorted(a >> 1 for a in acts) == sorted(kinds)  # one copy per kind
        assert all(legal >> a & 1 for a in acts)
        for c in range(48):
            p = g.problem(turn, c)
            if legal >> c & 1:
                assert p is None
            elif hand >> c & 1:
                assert p is not None and p[0] == "must_follow"
                # following: the led class is in hand and this card is not of it
                led = g.scheme.cls[g.trick[0]]
                assert g.scheme.cls[c] != led and hand & g.scheme.class_mask[led]
            else:
                assert p is not None and p[0] == "card_not_in_hand"
        other = (turn + 1) % 4
        assert g.legal_cards(other) == 0
        assert g.problem(other, acts[0]) == ("not_your_turn", {"turn": turn})
        for a in NON_CARD:
            assert g.problem(turn, a) is not None
    else:
        for a in NON_CARD:
            assert (g.problem(turn, a) is None) == (a in acts)
        for c in range(48):
            assert g.problem(turn, c) is not None


def check_finished(g: Game, start: dict[str, Any]) -> None:
    assert g.phase is Phase.FINISHED
    assert len(g.tricks) == 12 and g.trick == []
    assert sum(g.eyes) == 240 and sum(g.won) == 12
    played = [c for _, cards, _ in g.tricks for c in cards]
    assert sorted(played) == list(range(48))
    assert g.hands == [0, 0, 0, 0]
    leader = g.tricks[0][0]
    for lead, cards, winner in g.tricks:
        assert lead == leader
        for j, c in enumerate(cards):
            assert g.start_hands[(lead + j) % 4] >> c & 1
        leader = winner
    eyes = [0, 0, 0, 0]
    for _, cards, winner in g.tricks:
        eyes[winner] += sum(POINTS[c] for c in cards)
    assert eyes == g.eyes
    assert [sum(w == s for _, _, w in g.tricks) for s in range(4)] == g.won
    r = score(g)
    assert sum(r.scores) == 0
    assert sum(r.eyes) == 240 and sum(r.tricks) == 12
    re = [s for s in range(4) if g.re_seats >> s & 1]
    ko = [s for s in range(4) if s not in re]
    assert len(re) in (1, 2)
    if len(re) == 1:
        assert r.solo_scored and g.game_type is not GameType.NORMAL
        assert r.scores[re[0]] == 3 * r.re_total
        assert all(r.scores[s] == -r.re_total for s in ko)
        assert not any(c.item in ("doppelkopf", "fox", "karlchen") for c in r.components)
    else:
        assert g.game_type in (GameType.NORMAL, GameType.WEDDING)
        assert all(r.scores[s] == r.re_total for s in re)
        assert all(r.scores[s] == -r.re_total for s in ko)
    assert r.re_total == sum(c.points if c.party == 0 else -c.points for c in r.components)
    if g.game_type is GameType.NORMAL:
        assert {s for s in range(4) if g.start_hands[s] & CLUB_QUEENS} == set(re)
    # undo everything: back to the exact start
    while g.log:
        g.pop()
    assert state(g) == start


@given(setups())
def test_random_games(s: dict[str, Any]) -> None:
    rng = random.Random(s["seed"])
    g = new_game(s)
    start = state(g)
    assert start == state(new_game(s))
    while g.phase is not Phase.FINISHED:
        check_turn(g)
        maybe_call(g, rng, s["p_call"])
        if rng.random() < 0.2:  # push/pop restores the exact state
            before = state(g)
            seat, action = g.turn, choose(g, rng, 0.5)
            if g.phase is Phase.PLAYING and rng.random() < 0.5:
                calls = g.legal_calls(caller := rng.randrange(4))
                if calls:
                    seat, action = caller, rng.choice(calls)
            g.push(seat, action)
            assert g.pop() == (seat, action)
            assert state(g) == before
        if rng.random() < 0.05:  # an illegal call changes nothing
            seat = rng.randrange(4)
            bad = [a for a in ALL_CALLS if a not in g.legal_calls(seat)]
            if bad:
                before = state(g)
                try:
                    g.play(seat, rng.choice(bad))
                except IllegalAction as e:
                    assert e.reason
                else:
                    raise AssertionError("illegal call accepted")
                assert state(g) == before
        action = choose(g, rng, s["p_reserve"])
        if 0 <= action < 48:
            assert g.legal_cards() >> action & 1
        g.play(g.turn, action)
        if g.phase is Phase.PLAYING and g.game_type is GameType.WEDDING and g.wedding_open:
            assert len(g.tricks) < 3 and g.re_seats.bit_count() == 1
    event(f"{g.game_type.key}, {len(g.calls)} calls, levels {g.level}")
    assert g.legal_actions() == []
    assert all(g.legal_calls(seat) == [] for seat in range(4))
    check_finished(g, start)


def play_to(g: Game, rng: random.Random, s: dict[str, Any], cards: int) -> None:
    """Play randomly (with calls) until ``cards`` cards are played or the game ends."""
    while g.phase is not Phase.FINISHED and (
        g.phase is not Phase.PLAYING or 48 - g.cards_left < cards
    ):
        maybe_call(g, rng, s["p_call"])
        g.play(g.turn, choose(g, rng, s["p_reserve"]))


@given(setups(), st.integers(0, 47))
def test_playout_agrees_with_push(s: dict[str, Any], cut: int) -> None:
    """The fast path plays legal cards and scores tricks like the checked path."""
    rng = random.Random(s["seed"])
    g = new_game(s)
    play_to(g, rng, s, cut)
    if g.phase is not Phase.PLAYING:
        return
    before = state(g)
    p = g.copy()
    p.playout(random.Random(s["seed"] + 1))
    assert state(g) == before  # the copy is independent
    assert p.phase is Phase.FINISHED
    q = g.copy()
    cards = [c for _, t, _ in p.tricks for c in t][48 - g.cards_left - len(g.trick) :]
    cards = cards[len(g.trick) :]
    for c in cards:
        assert q.legal_cards() >> c & 1, "playout played an illegal card"
        q.play(q.turn, c)
    for name in (
        "tricks",
        "trick",
        "eyes",
        "won",
        "re_seats",
        "wedding_open",
        "shift",
        "phase",
        "leader",
        "turn",
        "hands",
        "level",
    ):
        assert getattr(p, name) == getattr(q, name), name
    assert score(p) == score(q)


def kinds(mask: int) -> list[int]:
    """How many copies of each kind ``mask`` holds."""
    return [(mask >> (2 * k) & 1) + (mask >> (2 * k + 1) & 1) for k in range(24)]


def swap_copies(g: Game, rng: random.Random, seat: int) -> tuple[list[int], int] | None:
    """Start hands in which the two copies of one kind held at the start by two different
    seats (``seat`` may be one of them) are exchanged: a twin deal that ``seat`` cannot
    tell from ``g``'s. None if no kind is split so."""
    start = g.start_hands
    split = []
    for k in range(24):
        a = [s for s in range(4) if start[s] >> (2 * k) & 1]
        b = [s for s in range(4) if start[s] >> (2 * k + 1) & 1]
        if a and b and a != b:
            split.append((k, a[0], b[0]))
    if not split:
        return None
    k, a, b = rng.choice(split)
    hands = list(start)
    hands[a] ^= 3 << (2 * k)
    hands[b] ^= 3 << (2 * k)
    return hands, k


def swap_hidden(g: Game, rng: random.Random, a: int, b: int) -> list[int] | None:
    """Start hands with an unplayed card of ``a`` and one of ``b`` exchanged, of the same
    class and not ♣Q, so that the history stays legal; None if there is no such pair."""
    cls = g.scheme.cls
    pairs = [
        (x, y)
        for x in range(48)
        if g.hands[a] >> x & 1 and not CLUB_QUEENS >> x & 1
        for y in range(48)
        if g.hands[b] >> y & 1
        and not CLUB_QUEENS >> y & 1
        and cls[x] == cls[y]
        and x >> 1 != y >> 1
    ]
    if g.phase is not Phase.PLAYING:  # before the play any non-♣Q cards may be swapped
        pairs = [
            (x, y)
            for x in range(48)
            if g.hands[a] >> x & 1 and not CLUB_QUEENS >> x & 1
            for y in range(48)
            if g.hands[b] >> y & 1 and not CLUB_QUEENS >> y & 1 and x >> 1 != y >> 1
        ]
    if not pairs:
        return None
    x, y = rng.choice(pairs)
    hands = list(g.start_hands)
    hands[a] ^= 1 << x | 1 << y
    hands[b] ^= 1 << x | 1 << y
    return hands


@given(setups(), st.integers(0, 47), st.integers(0, 3))
def test_observation_hides_other_hands(s: dict[str, Any], cut: int, seat: int) -> None:
    rng = random.Random(s["seed"])
    g = new_game(s)
    play_to(g, rng, s, cut)
    if g.phase is not Phase.FINISHED and rng.random() < 0.3:
        g.play(g.turn, choose(g, rng, s["p_reserve"]))  # also mid-reservation, mid-trick
    a, b = rng.sample([x for x in range(4) if x != seat], 2)
    hands = swap_hidden(g, rng, a, b)
    if hands is None:
        return
    h = Game.from_hands(
        g.rules,
        g.dealer,
        hands,
        mandatory_owed=g.mandatory_owed,
        forced_soloist=None if g.forced < 0 else g.forced,
    )
    for who, action in g.log:
        h.play(who, action)  # the same history is legal with the swapped cards
    assert h.hands != g.hands and h.hands[seat] == g.hands[seat]
    assert observe(h, seat) == observe(g, seat)
    assert observe(h, a) != observe(g, a)  # the test can see a difference
    obs = observe(g, seat, canonical=False)  # the game's own card ids
    others = 0
    for x in range(4):
        if x != seat:
            others |= g.hands[x]
    assert obs.unseen == others and obs.hand == g.hands[seat]
    for x in range(4):  # what it claims to know of the parties is true
        assert obs.parties[x] in (None, g.party_of(x))
    for field in ("tricks", "trick", "calls", "eyes", "won", "level"):
        assert getattr(obs, field) == tuple(getattr(g, field))
    canon = observe(g, seat)  # the same cards, only their copies numbered otherwise
    assert kinds(canon.hand) == kinds(obs.hand) and kinds(canon.unseen) == kinds(obs.unseen)
    assert [kinds(m) for m in canon.played_by()] == [kinds(m) for m in obs.played_by()]


@given(setups(), st.integers(0, 47), st.integers(0, 3))
def test_observation_numbers_copies_canonically(s: dict[str, Any], cut: int, seat: int) -> None:
    """Twin deals: the two copies of a kind exchanged between two seats (one of them may be
    the player), the same history played (each card as the copy its player holds). The
    player cannot tell the deals apart, and his observation is the same at every point."""
    rng = random.Random(s["seed"])
    g = new_game(s)
    play_to(g, rng, s, cut)
    twin = swap_copies(g, rng, seat)
    if twin is None:
        return
    hands, _ = twin
    h = Game.from_hands(
        g.rules,
        g.dealer,
        hands,
        mandatory_owed=g.mandatory_owed,
        forced_soloist=None if g.forced < 0 else g.forced,
    )
    again = g.redealt()
    for who, action in g.log:
        assert observe(h, who) == observe(again, who)
        h.play(who, action)  # the copy ``who`` holds in this deal
        again.play(who, action)
    assert h.start_hands != g.start_hands  # the test can see a difference
    for x in range(-1, 4):
        assert observe(h, x) == observe(g, x)


@given(setups(), st.integers(0, 47), st.integers(0, 3))
def test_sampled_worlds_are_consistent(s: dict[str, Any], cut: int, seat: int) -> None:
    rng = random.Random(s["seed"])
    g = new_game(s)
    play_to(g, rng, s, cut)
    if g.phase is not Phase.PLAYING:
        return
    obs = observe(g, seat, canonical=False)  # the game's own card ids
    truth = obs.world(list(g.hands))
    for name in (
        "hands",
        "re_seats",
        "scheme",
        "tricks",
        "trick",
        "turn",
        "leader",
        "shift",
        "level",
        "closed",
        "wedding_open",
    ):
        assert getattr(truth, name) == getattr(g, name), name
    assert truth.legal_actions() == g.legal_actions()
    assert [truth.legal_calls(x) for x in range(4)] == [g.legal_calls(x) for x in range(4)]
    for o in (obs, observe(g, seat)):  # the game's card ids, and the canonical ones
        hands = o.sample_hands(random.Random(s["seed"] + 7))
        assert hands[seat] == o.hand and kinds(o.hand) == kinds(g.hands[seat])
        assert [h.bit_count() for h in hands] == [h.bit_count() for h in g.hands]
        total = 0
        for x in range(4):
            assert total & hands[x] == 0
            total |= hands[x]
        assert total == o.unseen | o.hand
        for x in range(4):
            for c in range(5):
                if o.voids[x] >> c & 1:
                    assert hands[x] & g.scheme.class_mask[c if c < TRUMP else TRUMP] == 0
        w = o.world(hands)
        assert w.turn == g.turn and w.re_seats.bit_count() >= 1
        if g.turn == seat:
            assert [a >> 1 for a in w.legal_actions()] == [a >> 1 for a in g.legal_actions()]
        w.playout(random.Random(1))
        r = score(w)
        assert sum(r.scores) == 0 and sum(r.eyes) == 240


# ------------------------------------------------------------------ exact reproducibility


def plain_deck(seed: int) -> list[int]:
    """RULES §2 deal: the plain Fisher-Yates of shuffled_deck, digit by digit."""
    deck = list(range(48))
    x = random.Random(seed).getrandbits(256)
    for i in range(47, 0, -1):
        x, j = divmod(x, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


@given(st.integers(-(2**70), 2**70))
def test_deal_is_the_plain_fisher_yates(seed: int) -> None:
    deck = plain_deck(seed)
    assert shuffled_deck(random.Random(seed)) == deck
    g = Game.deal(DEFAULT_RULES, 0, seed)
    assert list(g.start_hands) == [
        sum(1 << c for c in deck[12 * i : 12 * i + 12]) for i in range(4)
    ]


def test_deal_pinned() -> None:
    assert shuffled_deck(random.Random(1))[:6] == [12, 36, 16, 41, 39, 4]
    assert Game.deal(DEFAULT_RULES, 0, 12345).start_hands == tuple(
        sum(1 << c for c in plain_deck(12345)[12 * i : 12 * i + 12]) for i in range(4)
    )


def plain_playout(g: Game, rng: random.Random) -> None:
    """The rollout rule, written plainly: the k-th lowest legal card id, k = int(r * n)."""
    while g.phase is Phase.PLAYING:
        legal = [c for c in range(48) if g.legal_cards() >> c & 1]
        g.push(g.turn, legal[int(rng.random() * len(legal))])


@given(setups(), st.integers(0, 47))
def test_playout_is_the_plain_rollout(s: dict[str, Any], cut: int) -> None:
    rng = random.Random(s["seed"])
    g = new_game(s)
    play_to(g, rng, s, cut)
    if g.phase is not Phase.PLAYING:
        return
    fast, plain = g.copy(), g.copy()
    fast.playout(random.Random(cut))
    plain_playout(plain, random.Random(cut))
    for name in (
        "tricks",
        "eyes",
        "won",
        "re_seats",
        "wedding_open",
        "wedding_trick",
        "shift",
        "phase",
        "leader",
        "turn",
        "hands",
    ):
        assert getattr(fast, name) == getattr(plain, name), name
