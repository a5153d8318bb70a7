"""Computer players: legal actions only, restrictions, determinism, no hidden information."""

from __future__ import annotations

import random

import pytest

from dokobot.ai import Restrictions, legal_actions, legal_calls, make_player
from dokobot.ai.arena import play_game
from dokobot.ai.base import ComputerPlayer
from dokobot.ai.levels import LEVELS, SEARCHING_LEVELS
from dokobot.ai.search import SearchPlayer
from dokobot.engine import (
    DECLARE_SOLO,
    DECLARE_WEDDING,
    DEFAULT_RULES,
    HEALTHY,
    RESERVATION,
    TOURNAMENT_RULES,
    Action,
    Game,
    GameType,
    Observation,
    Phase,
    observe,
)
from dokobot.engine.cards import (
    ACE,
    CLUB_QUEENS,
    CLUBS,
    DIAMONDS,
    HEARTS,
    JACK,
    QUEEN,
    SPADES,
    TEN,
    both,
    card_of,
    mask_of,
)

FAST = 0.02  # search budget in the tests


def _players(
    levels: list[str], seed: int, r: Restrictions | None = None, *, fixed: bool = False
) -> list[ComputerPlayer]:
    return [
        make_player(lv, seed=seed * 4 + s, restrictions=r, budget_s=FAST, fixed=fixed)
        for s, lv in enumerate(levels)
    ]


def test_make_player_levels() -> None:
    names = {lv: make_player(lv, seed=0).name for lv in ("random", "chaos", "easy", "normal")}
    assert names == {
        "random": "random",
        "chaos": "chaos",
        "easy": "heuristic",
        "normal": "heuristic",
    }
    assert make_player("strong", seed=0).name == "search"
    with pytest.raises(ValueError):
        make_player("godlike", seed=0)


def test_the_searching_levels_are_those_that_search() -> None:
    """``SEARCHING_LEVELS`` (which ``bench/ai.py`` gives its search seeds) is derived from
    the declarations: exactly the levels whose player searches within a budget."""
    made = {lv: make_player(lv, seed=0, budget_s=0.01) for lv in LEVELS}
    assert set(SEARCHING_LEVELS) == {lv for lv, p in made.items() if isinstance(p, SearchPlayer)}
    assert "strong" in SEARCHING_LEVELS and "normal" not in SEARCHING_LEVELS


def _kind(action: Action) -> int:
    """A card's kind (both copies alike), any other action as it is (above every kind)."""
    return action >> 1 if action < 48 else action + 48


def test_obs_legal_actions_and_calls_match_engine() -> None:
    """The observation helpers agree with the engine for every seat at every step."""
    for seed in range(60):
        players = _players(["chaos"] * 4, seed)
        g = Game.deal(DEFAULT_RULES if seed % 2 else TOURNAMENT_RULES, seed % 4, seed)
        while g.phase is not Phase.FINISHED:
            for s in range(4):
                obs = observe(g, s)
                assert legal_calls(obs) == g.legal_calls(s)
                if s == g.turn:  # the same cards (the observation numbers copies its own way)
                    assert [_kind(a) for a in legal_actions(obs)] == [
                        _kind(a) for a in g.legal_actions()
                    ]
                else:
                    assert legal_actions(obs) == []
            seat = g.turn
            if g.phase is Phase.PLAYING:
                call = players[seat].announce(observe(g, seat))
                if call is not None:
                    g.play(seat, call)
                    continue
            g.play(seat, players[seat].decide(observe(g, seat)))


@pytest.mark.parametrize("level", ["random", "chaos", "easy", "normal"])
def test_only_legal_actions(level: str) -> None:
    """``play_game`` goes through the checked ``Game.play``: any illegal action raises."""
    for seed in range(120):
        levels = [level, "chaos", level, "random"] if seed % 3 == 0 else [level] * 4
        rules = TOURNAMENT_RULES if seed % 5 == 0 else DEFAULT_RULES
        rec = play_game(_players(levels, seed), seed=seed, dealer=seed % 4, rules=rules)
        assert sum(rec.result.scores) == 0


def test_strong_only_legal_actions() -> None:
    for seed in range(3):
        levels = ["strong", "chaos", "normal", "random"]
        rec = play_game(_players(levels, seed), seed=seed, dealer=seed % 4)
        assert rec.game.phase is Phase.FINISHED


def test_forced_solo_and_declarations() -> None:
    """Forced solos (tournament) and reservations lead to legal declarations for all."""
    for level in ("random", "chaos", "easy", "normal", "strong"):
        for seed in range(4 if level != "strong" else 2):
            g = Game.deal(TOURNAMENT_RULES, 0, seed, forced_soloist=seed % 4)
            levels = [level, "normal", level, "chaos"]
            players = _players(levels, seed, Restrictions(no_calls=True, no_solo=True))
            rec = play_game(players, seed=seed, game=g)
            assert rec.game.game_type is GameType.SOLO
    # Everyone with a reservation must declare; the chaos player reserves often.
    declared = 0
    for seed in range(40):
        rec = play_game(_players(["chaos", "normal", "chaos", "easy"], seed), seed=seed)
        declared += rec.game.game_type in (GameType.SOLO, GameType.WEDDING)
    assert declared > 0


def _strong_hand_game(seed: int) -> Game:
    """Seat 0 holds ♥10 ♥10 ♣Q ♣Q ♠Q ♠Q ♥Q ♥Q ♦Q ♦Q ♣J ♣A: solo material, both ♣Q."""
    hand = (
        both(HEARTS, TEN)
        | both(CLUBS, QUEEN)
        | both(SPADES, QUEEN)
        | both(HEARTS, QUEEN)
        | both(DIAMONDS, QUEEN)
        | mask_of([card_of(CLUBS, JACK), card_of(CLUBS, ACE)])
    )
    rest = [c for c in range(48) if not hand >> c & 1]
    random.Random(seed).shuffle(rest)
    hands = [hand, mask_of(rest[:12]), mask_of(rest[12:24]), mask_of(rest[24:36])]
    return Game.from_hands(DEFAULT_RULES, 3, hands)


@pytest.mark.parametrize("level", ["chaos", "easy", "normal", "strong"])
def test_duel_restrictions(level: str) -> None:
    """No calls, no solo; a wedding is still allowed with both ♣Q."""
    r = Restrictions(no_calls=True, no_solo=True)
    n = 30 if level != "strong" else 2
    levels = [level] * 4 if level != "strong" else ["strong", "normal", "chaos", "normal"]
    for seed in range(n):
        for g in (Game.deal(DEFAULT_RULES, seed % 4, seed), _strong_hand_game(seed)):
            players = _players(levels, seed, r)
            rec = play_game(players, seed=seed, game=g)
            assert rec.game.calls == []
            assert rec.game.game_type is not GameType.SOLO
            for s, d in enumerate(rec.game.declarations):
                assert d in (-1, DECLARE_WEDDING), (s, d)


def test_unrestricted_strong_hand_reserves() -> None:
    g = _strong_hand_game(0)
    obs = observe(g, 0)
    assert make_player("normal", seed=1).decide(obs) == RESERVATION
    duel = make_player("normal", seed=1, restrictions=Restrictions(True, True))
    assert duel.decide(obs) == RESERVATION  # both ♣Q: a wedding is still allowed
    # The search may prefer the silent wedding (healthy): scored as a solo, unannounced.
    assert make_player("strong", seed=1, budget_s=FAST).decide(obs) in (HEALTHY, RESERVATION)
    g2 = g.copy()
    for _ in range(4):
        g2.play(g2.turn, RESERVATION if g2.turn == 0 else HEALTHY)
    obs = observe(g2, 0)
    assert make_player("normal", seed=1).decide(obs) >= DECLARE_SOLO
    duel = make_player("normal", seed=1, restrictions=Restrictions(True, True))
    assert duel.decide(obs) == DECLARE_WEDDING


def _twin(g: Game, seat: int, rng: random.Random) -> Game:
    """A game with the same public history and the same hand of ``seat`` but other hidden
    hands: the unseen cards are dealt again (consistently), the log replayed."""
    for _ in range(50):
        if g.phase is Phase.PLAYING:
            hands = observe(g, seat, canonical=False).sample_hands(rng)  # the game's card ids
            start = list(hands)
            for leader, cards, _ in g.tricks:
                for i, c in enumerate(cards):
                    start[(leader + i) & 3] |= 1 << c
            for i, c in enumerate(g.trick):
                start[(g.leader + i) & 3] |= 1 << c
        else:
            rest = [c for c in range(48) if not g.start_hands[seat] >> c & 1]
            rng.shuffle(rest)
            start = []
            for s in range(4):
                if s == seat:
                    start.append(g.start_hands[seat])
                else:
                    start.append(sum(1 << c for c in rest[:12]))
                    rest = rest[12:]
        h = Game.from_hands(g.rules, g.dealer, start, mandatory_owed=g.mandatory_owed)
        try:
            for s, a in g.log:
                h.play(s, a)
        except Exception:
            continue  # the new deal changes something public (e.g. who is Re); try again
        if observe(h, seat) == observe(g, seat) and h.hands != g.hands:
            return h
    raise AssertionError("no twin found")


@pytest.mark.parametrize("level", ["random", "chaos", "easy", "normal", "strong"])
def test_never_reads_hidden_state(level: str) -> None:
    """Two games that differ only in the other players' hands give the same decisions."""
    rng = random.Random(7)
    checked = 0
    for seed in range(8 if level == "strong" else 30):
        g = Game.deal(DEFAULT_RULES, seed % 4, seed)
        driver = _players(["normal"] * 4, seed)
        steps = rng.randrange(0, 40)
        for _ in range(steps):
            if g.phase is Phase.FINISHED:
                break
            g.play(g.turn, driver[g.turn].decide(observe(g, g.turn)))
        if g.phase is Phase.FINISHED:
            continue
        seat = g.turn
        twin = _twin(g, seat, rng)
        a, b = observe(g, seat), observe(twin, seat)
        # the strong level is deterministic only with a fixed amount of work
        p1 = make_player(level, seed=seed, budget_s=FAST, fixed=True)
        p2 = make_player(level, seed=seed, budget_s=FAST, fixed=True)
        assert p1.decide(a) == p2.decide(b)
        assert p1.announce(a) == p2.announce(b)
        checked += 1
    assert checked >= 5


def test_deterministic_replay() -> None:
    """Same seeds, same games; for the strong level in its fixed-work mode (with a time
    budget its decisions depend on the machine's speed; the host journals its moves)."""
    for level in ("easy", "chaos", "strong"):
        levels = [level, "normal", "chaos", "random"]
        r1 = play_game(_players(levels, 3, fixed=True), seed=3)
        r2 = play_game(_players(levels, 3, fixed=True), seed=3)
        assert r1.game.log == r2.game.log


def test_decisions_do_not_depend_on_history_of_calls_to_the_player() -> None:
    """A player keeps no state: asking twice, or in another order, gives the same answer."""
    g = Game.deal(DEFAULT_RULES, 3, 9)
    for s in range(4):
        g.play(s, HEALTHY)
    obs: Observation = observe(g, g.turn)
    p = make_player("strong", seed=5, budget_s=FAST, fixed=True)
    first: Action = p.decide(obs)
    p.announce(obs)
    assert p.decide(obs) == first


def test_wedding_declared_with_both_club_queens() -> None:
    for seed in range(200):
        g = Game.deal(DEFAULT_RULES, 3, seed)
        holders = [s for s in range(4) if g.hands[s] & CLUB_QUEENS == CLUB_QUEENS]
        if holders:
            obs = observe(g, holders[0])
            assert make_player("normal", seed=0).decide(obs) == RESERVATION
            return
    raise AssertionError("no deal with both ♣Q in one hand")


def test_search_call_gains_match_scoring() -> None:
    """The paired call evaluation equals the real scoring with the call level applied."""
    from dokobot.ai.search import CallEval
    from dokobot.engine import score

    rng = random.Random(11)
    for seed in range(150):
        g = Game.deal(DEFAULT_RULES, seed % 4, seed)
        while g.phase is not Phase.PLAYING:
            g.push(g.turn, rng.choice(g.legal_actions()))
        calls = g.legal_calls(g.turn)
        if calls and seed % 2:
            g.push(g.turn, rng.choice(calls))
        g.playout(rng)
        levels = [1, 2, 3, 4, 5]
        for me in range(4):
            ev = CallEval(levels)
            ev.add(g, me)
            party = 0 if g.re_seats >> me & 1 else 1
            old = g.level[:]
            base = score(g).scores[me]
            for i, lv in enumerate(levels):
                g.level[party] = lv
                assert ev.gain[i] == score(g).scores[me] - base
                g.level[:] = old


def test_strong_calls_with_overwhelming_hand() -> None:
    g = _strong_hand_game(0)
    for _ in range(4):
        g.play(g.turn, HEALTHY)  # silent wedding: seat 0 plays alone, first hand
    obs = observe(g, 0)
    call = make_player("strong", seed=1, budget_s=FAST).announce(obs)
    assert call is not None and call in legal_calls(obs)
    duel = make_player("strong", seed=1, budget_s=FAST, restrictions=Restrictions(True, True))
    assert duel.announce(obs) is None


def test_heuristic_margin_keeps_the_heuristic_card_unless_search_finds_it_clearly_worse() -> None:
    """``heuristic_margin``: a huge margin always plays the heuristic's card, none plays the
    search's; on some turn of these games the two differ (so the setting does something)."""
    from dokobot.ai.heuristic import choose_card
    from dokobot.ai.legal import decision_rng
    from dokobot.ai.search import SearchPlayer

    differed = 0
    for seed in range(3):
        g = Game.deal(DEFAULT_RULES, dealer=0, seed=seed)
        for _ in range(4):
            g.push(g.turn, HEALTHY)
        while g.phase is Phase.PLAYING:
            obs = observe(g, g.turn)
            trusting = SearchPlayer(seed, Restrictions(), FAST, heuristic_margin=1e9, fixed=True)
            plain = SearchPlayer(seed, Restrictions(), FAST, fixed=True)
            h = choose_card(obs, decision_rng(seed, obs, "heuristic"))
            t = trusting.decide(obs)
            assert t // 2 == h // 2  # the same card (either copy)
            differed += plain.decide(obs) // 2 != h // 2
            g.play(g.turn, t)
    assert differed > 0


def test_card_choice_weighs_every_world_the_same() -> None:
    """The card is chosen by its mean over the worlds of its mean in each world: a card that
    UCT tried often in the one world where it shines and rarely in the one where it fails
    does not beat a card that is fair in both (pooling the visits would choose it)."""
    from dokobot.ai.search import SearchStats

    stats = SearchStats()

    def add(card: int, n: int, mean: float, iterations: int = 150) -> None:
        stats.n[card] = stats.n.get(card, 0) + n
        stats.w[card] = stats.w.get(card, 0.0) + n * mean
        stats.world_means[card] = stats.world_means.get(card, 0.0) + iterations * mean
        stats.world_weights[card] = stats.world_weights.get(card, 0) + iterations

    for card, n, mean in ((0, 100, 10.0), (0, 2, -10.0), (1, 40, 5.0), (1, 40, 5.0)):
        add(card, n, mean)
    assert stats.mean(0) == 0.0 and stats.mean(1) == 5.0
    assert stats.pooled_mean(0) > 9.0
    assert stats.best() == 1
    assert stats.best(pooled=True) == 0
    # a last world of 3 iterations, cut short by the budget, counts by its share of the work
    add(1, 3, -40.0, iterations=3)
    assert stats.mean(1) == pytest.approx((150 * 5.0 * 2 - 3 * 40.0) / 303)
    assert stats.best() == 1


def test_search_records_each_worlds_mean_of_each_root_card() -> None:
    """``uct_search`` adds one mean per world to each root card it tried there, weighed by
    the world's iterations: every card is tried, in at most every world; with one world the
    mean is the pooled mean."""
    from dokobot.ai.search import Budget, uct_search

    g = Game.deal(DEFAULT_RULES, dealer=0, seed=4)
    for _ in range(4):
        g.push(g.turn, HEALTHY)
    obs = observe(g, g.turn)
    stats = uct_search(obs, random.Random(2), Budget(0.0, 400), worlds=8, c=24.0)
    assert stats.worlds == 8
    assert set(stats.world_weights) == set(stats.n) == set(legal_actions(obs))
    assert all(50 <= k <= 400 and k % 50 == 0 for k in stats.world_weights.values())
    assert max(stats.world_weights.values()) == 400
    one = uct_search(obs, random.Random(2), Budget(0.0, 400), worlds=1, c=24.0)
    for card in one.n:
        assert one.mean(card) == pytest.approx(one.pooled_mean(card))


def test_play_likelihood_believes_the_real_hands_of_heuristic_players() -> None:
    """Four ``normal`` players: after 6 tricks the real deal explains every card (weight 1),
    while deals drawn at random from the observation often do not (weight below 1); with
    ``infer`` the search draws its worlds that way and still decides."""
    from dokobot.ai.search import SearchPlayer, play_likelihood

    below = 0
    checked = 0
    for seed in range(8):
        g = Game.deal(DEFAULT_RULES, dealer=0, seed=seed)
        players = _players(["normal"] * 4, seed)
        while g.phase is not Phase.PLAYING:
            g.play(g.turn, players[g.turn].decide(observe(g, g.turn)))
        if g.game_type is not GameType.NORMAL:
            continue
        for _ in range(24):
            g.play(g.turn, players[g.turn].decide(observe(g, g.turn)))
        obs = observe(g, g.turn, canonical=False)  # the game's card ids, as g.hands
        assert play_likelihood(obs, list(g.hands), 0.2) == 1.0
        rng = random.Random(seed)
        weights = [play_likelihood(obs, obs.sample_hands(rng), 0.2) for _ in range(10)]
        below += sum(w < 1.0 for w in weights)
        checked += 1
        inferring = SearchPlayer(seed, Restrictions(), FAST, infer=4, fixed=True)
        assert inferring.decide(obs) in legal_actions(obs)
    assert checked >= 4 and below > checked


def test_strong_calls_only_a_significant_gain() -> None:
    """``call_z``: the strong level calls only when the paired gain of its best call lies
    ``call_z`` standard errors above zero; the old rule (``call_z=0``) calls on the mean
    alone, so on some turns of these games it calls where the strong level does not."""
    from dokobot.ai.base import NO_RESTRICTIONS
    from dokobot.ai.search import CALL_Z, NO_CALL

    assert CALL_Z > 0
    only_old = 0
    for seed in range(6):
        g = Game.deal(DEFAULT_RULES, dealer=0, seed=seed)
        for _ in range(4):
            g.play(g.turn, HEALTHY)
        while g.phase is Phase.PLAYING and len(g.tricks) < 4:
            obs = observe(g, g.turn)
            new = SearchPlayer(seed, NO_RESTRICTIONS, FAST, fixed=True)
            old = SearchPlayer(seed, NO_RESTRICTIONS, FAST, fixed=True, call_z=0.0)
            cands = new.candidate_calls(obs)
            call, old_call = new.announce(obs), old.announce(obs)
            if cands:
                ev = new.call_evaluation(obs, cands, "announce")
                best = max(cands, key=lambda a: (ev.mean(a), -cands.index(a)))
                gain, se = ev.gap(best, NO_CALL)
                sure = gain > new.call_margin and gain >= CALL_Z * se
                assert call == (best if sure else None)
                assert old_call == (best if gain > old.call_margin else None)
                only_old += call is None and old_call is not None
            g.play(g.turn, new.decide(obs))
    assert only_old > 0
