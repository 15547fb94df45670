"""The compiled kernel agrees with the engine: hand by hand on given packs and decisions, seat by
seat on the policies, and in loss rates by position on fresh chance."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest

pytest.importorskip("numba")

from hypothesis import assume, given
from hypothesis import strategies as st

import chasetheace as cta
from chasetheace.cards import pack
from chasetheace.events import Dealt, Eliminated, FinalTie, GameOver, HandStarted, KingJerk, LivesLost
from chasetheace.extras import install_command
from chasetheace.fast import NotCompilableError, Policies, Script, compile_bots, play_chunk, replay, script_of
from chasetheace.fast import kernel as K
from chasetheace.rules import OPTIONS
from chasetheace.sim import SimConfig, simulate

Outcome = tuple[int, tuple[tuple[int, int], ...], tuple[int, ...], int, tuple[bool, ...]]


def engine_outcomes(game: cta.Game) -> list[Outcome]:
    """Per hand, read from the engine's events: dealer, payments, then lives, kitty, who is in."""
    lives, kitty, alive = [game.rules.lives] * game.players, 0, [True] * game.players
    out: list[Outcome] = []
    dealer = -1
    payments: tuple[tuple[int, int], ...] = ()
    for ev in [*game.events, HandStarted(0, 0, ())]:
        if isinstance(ev, HandStarted | GameOver) and dealer >= 0:
            out.append((dealer, tuple(sorted(payments)), tuple(lives), kitty, tuple(alive)))
            dealer = -1
        if isinstance(ev, HandStarted):
            dealer, payments = ev.dealer, ()
        elif isinstance(ev, KingJerk) and ev.took:
            lives[ev.seat] += 1
            kitty -= 1
        elif isinstance(ev, LivesLost):
            payments = ev.payments
            for s, p in payments:
                lives[s] -= p
                kitty += p
        elif isinstance(ev, FinalTie) and ev.rule == "replay":
            for s, p in payments:
                lives[s] += p
                kitty -= p
        elif isinstance(ev, Eliminated):
            for s in ev.seats:
                alive[s] = False
    return out


def play_capped(game: cta.Game, bots: list[Any], seed: int, hands: int = 400) -> bool:
    """Let the bots play; False if the game is still on after ``hands`` hands (with ``to-bottom``
    and bots that always decide alike, a game can go round the same cards for ever)."""
    rng = random.Random(seed)
    while game.to_act is not None and game.hand <= hands:
        seat = game.to_act
        game.act(bots[seat].choose(game.observation(seat), game.legal_actions(), rng))
    return game.over


def kernel_outcomes(rep: Any) -> list[Outcome]:
    return [(h.dealer, tuple(sorted(h.payments)), h.lives, h.kitty, h.alive) for h in rep.hands]


@st.composite
def tables(draw: st.DrawFn) -> tuple[cta.Rules, int, list[str] | None, int | None, int]:
    """Random rules (every option of A2), a player count, maybe a stacked pack and a dealer, a seed."""
    options: dict[str, Any] = {key: draw(st.sampled_from(o.values)) for key, o in OPTIONS.items()
                               if o.minimum is None}
    options["lives"] = draw(st.integers(1, 3))
    rules = cta.Rules(**options)
    players = draw(st.integers(2, rules.max_players))
    stacked = None
    if draw(st.booleans()):
        cards = [str(c) for c in draw(st.permutations(pack(rules.deck)))]
        stacked = cards[:draw(st.integers(0, len(cards)))]
    dealer = draw(st.none() | st.integers(0, players - 1))
    return rules, players, stacked, dealer, draw(st.integers(0, 2**32))


@given(tables())
def test_kernel_replays_the_engine_hand_by_hand(table: tuple[cta.Rules, int, list[str] | None,
                                                             int | None, int]) -> None:
    rules, players, stacked, dealer, seed = table
    game = cta.Game(rules, players, seed=seed, stack=stacked, dealer=dealer)
    choices = random.Random(seed)
    while not game.over and game.hand < 400:
        game.act(choices.choice(["keep", "swap"]))
    assume(game.over)
    script = script_of(game.events)
    rep = replay(rules, Policies.build(players, [K.P_RANDOM] * players), script,
                 deck=stacked, dealer=dealer)
    assert kernel_outcomes(rep) == engine_outcomes(game)
    assert rep.complete and rep.winner == game.winner
    assert script.decisions is not None
    assert rep.probes == (0.5,) * len(script.decisions)  # every given decision was taken


@given(tables(), st.lists(st.integers(1, 13), min_size=51, max_size=51))
def test_threshold_policies_decide_as_the_threshold_bots(
        table: tuple[cta.Rules, int, list[str] | None, int | None, int], ranks: list[int]) -> None:
    rules, players, stacked, dealer, seed = table
    bots = [cta.ThresholdBot(r) for r in ranks[:players]]
    game = cta.Game(rules, players, seed=seed, stack=stacked, dealer=dealer)
    assume(play_capped(game, bots, seed))
    chance = script_of(game.events)
    rep = replay(rules, compile_bots(bots, rules), Script(chance.shuffles, chance.picks),
                 deck=stacked, dealer=dealer)
    assert kernel_outcomes(rep) == engine_outcomes(game)
    assert rep.winner == game.winner


def test_threshold_by_position_keeps_where_told() -> None:
    rules = cta.Rules(lives=1000, blocker="none")
    # the dealer (place 2 of 3) keeps everything, the others swap everything weaker than the king
    pol = Policies.thresholds(rules, [{(3, 0): "K", (3, 1): "K", (3, 2): "A"}] * 3)
    game = cta.Game(rules, 3, seed=5)
    for _ in range(30):
        game.act("keep")
    rep = replay(rules, pol, script_of(game.events), max_hands=10)
    assert not rep.complete and len(rep.hands) == 10  # the game goes on where the script stops
    dealt = [ev.cards for ev in game.events if isinstance(ev, Dealt)]
    # everyone keeps, so the eldest and the 2nd decide on the card dealt: they keep only a king
    assert rep.probes[0::3] == tuple(float(cards[0][1].rank == 13) for cards in dealt[:10])
    assert rep.probes[1::3] == tuple(float(cards[1][1].rank == 13) for cards in dealt[:10])
    assert rep.probes[2::3] == (1.0,) * 10


@pytest.mark.parametrize("thinned", [False, True])
def test_the_solver_table_gives_the_solved_bots_probabilities(thinned: bool) -> None:
    pytest.importorskip("scipy")
    import dataclasses

    from chasetheace.solver import SolvedBot, solve
    from chasetheace.solver.model.hand import infoset_of

    rules = cta.Rules(kings_jerk=True, announce_low=True, lives=2)
    solutions = {n: solve(rules, n) for n in (2, 3)}
    if thinned:  # as a sampled solution that never met some situations: the bot's fallback plays
        solutions = {n: dataclasses.replace(sol, infosets=sol.infosets[::3], keep=sol.keep[::3],
                                            reach=sol.reach[::3], values=sol.values[::3])
                     for n, sol in solutions.items()}
    bot = SolvedBot(rules, solutions)
    policies = compile_bots([bot] * 3, rules)
    checked = fallbacks = 0
    for seed in range(25):
        game = cta.Game(rules, 3, seed=seed)
        choices = random.Random(seed)
        expected = []
        while not game.over:
            obs = game.observation(game.to_act)
            sol = bot.solution(len(obs["order"]))
            key = infoset_of(obs, sol.deck, kings_jerk=True)
            try:
                p = sol.keep_probability(key)
            except KeyError:
                average = sol.keep_by_card()[key[0]][key[2]]
                p = 1.0 if average == average and average >= 0.5 else 0.0
                fallbacks += 1
            expected.append(p)
            game.act(choices.choice(["keep", "swap"]))
        rep = replay(rules, policies, script_of(game.events))
        assert rep.probes == pytest.approx(expected, abs=1e-12)
        checked += len(expected)
    assert checked > 100 and (fallbacks > 20 if thinned else fallbacks == 0)


@given(tables(), st.lists(st.sampled_from(["counting", "counting", "threshold:8", "threshold:J"]),
                          min_size=12, max_size=12))
def test_the_counting_bot_decides_in_the_kernel_as_in_the_engine(
        table: tuple[cta.Rules, int, list[str] | None, int | None, int], specs: list[str]) -> None:
    rules, players, stacked, dealer, seed = table
    players = min(players, 12)
    dealer = dealer if dealer is not None and dealer < players else None
    bots = [cta.make_bot(spec, rules, players) for spec in specs[:players]]
    game = cta.Game(rules, players, seed=seed, stack=stacked, dealer=dealer)
    assume(play_capped(game, bots, seed))
    script = script_of(game.events)
    policies = compile_bots(specs[:players], rules)
    rep = replay(rules, policies, script, deck=stacked, dealer=dealer)
    assert script.decisions is not None
    assert rep.probes == tuple(float(keep) for keep in script.decisions)  # every decision, as made
    chance_only = replay(rules, policies, Script(script.shuffles, script.picks), deck=stacked, dealer=dealer)
    assert kernel_outcomes(chance_only) == engine_outcomes(game) and chance_only.winner == game.winner


class Stubborn:
    """A bot the kernel does not know: it always keeps."""

    def choose(self, observation: Any, legal: Any, rng: random.Random) -> cta.Action:
        return cta.Action.KEEP


@pytest.fixture
def stubborn(monkeypatch: pytest.MonkeyPatch) -> str:
    """The bot kind ``stubborn``, known to make_bot for this test only."""
    from chasetheace import registry

    kind: registry.BotKind[cta.Rules, Stubborn] = registry.BotKind(lambda arg, rules, players: Stubborn(),
                                                                  "keeps")
    monkeypatch.setitem(registry.BOTS, "stubborn", kind)
    return "stubborn"


def test_a_bot_the_kernel_does_not_know_is_not_compiled(stubborn: str) -> None:
    with pytest.raises(NotCompilableError, match="Stubborn"):
        compile_bots(["threshold:8", stubborn], cta.Rules())


def test_chunks_are_deterministic_and_count_as_the_engine_does() -> None:
    rules = cta.Rules()
    pol = compile_bots(["threshold:8"] * 4, rules)
    a = play_chunk(rules, pol, seed=3, hands=5000)
    b = play_chunk(rules, pol, seed=3, hands=5000)
    c = play_chunk(rules, pol, seed=4, hands=5000)
    assert a == b and a != c
    assert a.hands == 5000 and a.games > 0
    assert len({a.position_hands[4, p] for p in range(4)}) == 1  # every place plays every full hand
    assert sum(a.position_hands.values()) == sum(a.rank_hands.values())
    assert sum(a.wins) + a.no_sole_winner == a.games
    games = play_chunk(rules, pol, seed=3, games=50)
    assert games.games == 50 and sum(games.wins) == 50


MIXES = [
    ({}, 5, ("threshold:8",) * 5),
    ({"blocker": "none", "dealer_exchange": "top", "between_hands": "to-bottom", "first_dealer": "high-card"},
     4, ("threshold:9", "random", "threshold:6", "threshold:T")),
    ({"pairing": True, "kings_jerk": True, "ace_pays_double": True, "last_chance": True,
      "final_tie": "cut", "dealer_draws_blocker": "dealer-loses", "deck": 32}, 6, ("threshold:9",) * 6),
    ({"ties": "latest-loses", "dealer_same_rank": "dealer-wins", "king_stops_play": True,
      "first_dealer": "first-jack", "lives": 2, "dealer_draws_blocker": "void"}, 3, ("random",) * 3),
]


@pytest.mark.parametrize(("changes", "players", "bots"), MIXES)
def test_loss_rates_by_position_agree_with_the_engine(changes: dict[str, Any], players: int,
                                                      bots: tuple[str, ...]) -> None:
    assert_same_loss_rates(cta.Rules(**changes), players, bots, 12_000)


def test_the_solved_bot_loses_as_often_in_the_kernel_as_in_the_engine() -> None:
    pytest.importorskip("scipy")
    assert_same_loss_rates(cta.Rules(kings_jerk=True, lives=2), 3, ("solved",) * 3, 6_000)


def assert_same_loss_rates(rules: cta.Rules, players: int, bots: tuple[str, ...], hands: int) -> None:
    """Loss rates by position (players in, place) agree within 4 standard errors of the difference."""
    engine = simulate(SimConfig(rules, bots, seed=11, hands=hands))
    fast = play_chunk(rules, compile_bots(bots, rules), seed=11, hands=400_000)
    compared = 0
    for key, n1 in engine.tally.position_hands.items():
        n2 = fast.position_hands[key]
        if n1 < 500:
            continue
        p1 = engine.tally.position_losses[key] / n1
        p2 = fast.position_losses[key] / n2
        pooled = (engine.tally.position_losses[key] + fast.position_losses[key]) / (n1 + n2)
        se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
        assert abs(p1 - p2) <= 4 * se + 1e-12, (key, p1, p2, se)
        compared += 1
    assert compared >= players


TIMING = ("hands_per_second", "seconds", "workers")


def run_json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[dict[str, Any], str]:
    from chasetheace import cli

    assert cli.main(["simulate", "--json", *argv]) == 0
    out = capsys.readouterr()
    return json.loads(out.out), out.err


def test_simulate_fast_has_the_engines_keys_and_ignores_the_workers(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from chasetheace.fast import sim as fast_sim

    monkeypatch.setattr(fast_sim, "CHUNK_HANDS", 30_000)  # several chunks to share out
    argv = ["--hands", "100000", "--players", "4", "--seed", "9", "--rule", "between_hands=to-bottom"]
    python, _ = run_json(capsys, ["--hands", "300", "--players", "4"])
    one, err = run_json(capsys, [*argv, "--engine", "fast"])
    two, _ = run_json(capsys, [*argv, "--engine", "fast", "--workers", "2"])
    assert err == ""
    assert list(one) == list(python)
    assert one["hands"] == 100_000 and one["games"] > 0
    assert {k: v for k, v in one.items() if k not in TIMING} == {
        k: v for k, v in two.items() if k not in TIMING}
    other, _ = run_json(capsys, [*argv, "--engine", "fast", "--seed", "10"])
    assert other["loss_rate_by_position"] != one["loss_rate_by_position"]


def test_a_bot_the_kernel_cannot_play_falls_back_to_the_engine_saying_so(
        capsys: pytest.CaptureFixture[str], stubborn: str) -> None:
    argv = ["--games", "3", "--players", "3", "--bot", "counting", "--bot", stubborn, "--bot",
            "random", "--seed", "4"]
    from chasetheace import cli

    python, quiet = run_json(capsys, [*argv, "--engine", "python"])
    assert cli.main(["simulate", "--json", *argv, "--engine", "fast"]) == 2  # asked for by name
    out = capsys.readouterr()
    assert out.out == "" and out.err.count("\n") == 1 and "error: --engine fast:" in out.err
    assert "stubborn" in out.err.lower()
    assert "the kernel plays threshold, random, counting and solved" in out.err
    for engine in ([], ["--engine", "auto"]):  # auto is the default
        fell_back, err = run_json(capsys, [*argv, *engine])
        assert "cannot play" in err and "Stubborn" in err and "using the Python engine" in err
        assert err.count("\n") == 1  # one note
        assert {k: v for k, v in fell_back.items() if k not in TIMING} == {
            k: v for k, v in python.items() if k not in TIMING}
        assert fell_back["engine"] == "python"
    assert quiet == ""


def test_an_explicit_fast_engine_refuses_a_bot_it_cannot_play_before_making_it(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from chasetheace import cli, registry

    monkeypatch.setitem(registry.BOTS, "solved-game", registry.BotKind(
        lambda arg, rules, players: pytest.fail("made (and solved) before the refusal"), "stand-in"))
    assert cli.main(["simulate", "--engine", "fast", "--bot", "solved-game", "--players", "3"]) == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err.count("\n") == 1
    assert "--engine fast: the kernel cannot play 'solved-game'" in out.err


def test_simulate_runs_the_kernel_by_default_and_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    result, _ = run_json(capsys, ["--games", "50", "--players", "4", "--seed", "2"])
    assert result["engine"] == "fast"
    again, _ = run_json(capsys, ["--games", "50", "--players", "4", "--seed", "2"])
    assert {k: v for k, v in again.items() if k not in TIMING} == {
        k: v for k, v in result.items() if k not in TIMING}  # the same seed, the same numbers


def test_the_vector_env_keeps_its_generator_when_reset_without_a_seed() -> None:
    import gymnasium as gym
    import numpy as np

    import chasetheace.adapters.vector  # noqa: F401  (registers the env)

    def run() -> list[object]:
        envs = gym.make_vec("ChaseTheAceVector-v0", num_envs=4, players=3)
        envs.reset(seed=0)
        obs, info = envs.reset()
        seen: list[object] = [obs.tolist()]
        for _ in range(30):
            obs, _, terminated, _, info = envs.step(np.zeros(4, np.int64))
            seen.append(obs.tolist())
            assert list(info["_winners"]) == list(terminated)
            assert all((w is not None) == t for w, t in zip(info["winners"], terminated))
        assert info["_hand"].all() and info["_lives"].all()
        return seen

    assert run() == run()


def test_python_m_chasetheace_fast_runs_simulate_on_the_kernel(capsys: pytest.CaptureFixture[str]) -> None:
    from chasetheace.cli.fast import main

    assert main(["--hands", "2000", "--players", "3"]) == 0
    out = capsys.readouterr().out
    assert "2,000 hands" in out and "fast kernel" in out
    assert main(["--help"]) == 0
    assert "--engine {python,auto,fast}" in capsys.readouterr().out


def test_the_kernel_compiles_without_a_writable_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    import numpy as np
    from numba.core.caching import CacheImpl

    monkeypatch.setattr(CacheImpl, "_locator_classes", [])  # as if no folder at all were writable

    def total(a: np.ndarray) -> int:
        return int(a.sum())

    compiled = K.jit(refcounts=True)(total)
    assert compiled(np.arange(5)) == 10


def test_without_numba_auto_falls_back_saying_so_and_fast_is_an_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from chasetheace.fast.sim import choose_engine

    config = SimConfig(cta.Rules(), ("threshold:8",) * 3, hands=10)
    notes: list[str] = []
    assert choose_engine(config, "auto", notes.append) == "fast"
    monkeypatch.setitem(sys.modules, "numba", None)  # import numba now raises ImportError
    with pytest.raises(ValueError, match="--engine fast: the fast engine needs numba"):
        choose_engine(config, "fast", notes.append)
    assert notes == []
    assert choose_engine(config, "auto", notes.append) == "python"
    assert notes == [f"the fast engine needs numba (the fast extra), which is not installed here: run "
                     f"{install_command('fast')}; using the Python engine"]
    with pytest.raises(ValueError, match="unknown engine"):
        choose_engine(config, "turbo")


def test_bad_tables_and_scripts_are_refused_before_the_kernel_runs() -> None:
    rules = cta.Rules(deck=32)
    with pytest.raises(ValueError, match="bad number of players 32"):
        play_chunk(rules, Policies.build(32, [K.P_RANDOM] * 32), seed=1, hands=10)
    with pytest.raises(ValueError, match="bad amount"):
        play_chunk(rules, Policies.build(3, [K.P_RANDOM] * 3), seed=1, hands=0)
    with pytest.raises(ValueError, match="not an order of the 32-card pack"):
        replay(rules, Policies.build(3, [K.P_RANDOM] * 3), Script(shuffles=(tuple(pack(52)),)))
    with pytest.raises(ValueError, match="bad dealer"):
        replay(rules, Policies.build(3, [K.P_RANDOM] * 3), Script(), dealer=3)


@pytest.mark.parametrize("changes", [{}, {"between_hands": "to-bottom", "kings_jerk": True, "lives": 2}])
def test_a_game_paused_at_each_decision_and_answered_by_bot_keeps_is_the_same_game(
        changes: dict[str, Any]) -> None:
    import numpy as np

    from chasetheace.fast.tables import new_counts, new_table, nothing_given, rule_arrays

    rules = cta.Rules(**changes)
    policies = compile_bots(["random", "counting", "threshold:8", "counting"], rules).arrays()
    arrays = rule_arrays(rules)
    for seed in range(10):
        through, paused = new_counts(4, log=1000), new_counts(4, log=1000)
        once, stepped = new_table(4, seed=seed), new_table(4, seed=seed, events=10)
        winner = K.play_game(arrays, policies, nothing_given(), through, once, 1 << 62, False, False)
        pauses = 0
        while (code := K.play_game(arrays, policies, nothing_given(), paused, stepped, 1 << 62, True,
                                   True)) == K.PAUSED:
            pauses += 1
            stepped.st[K.S_PENDING] = 1 if K.bot_keeps(arrays, policies, stepped) else 0
        assert code == winner and pauses > 0
        assert stepped.g[K.G_HANDS] == once.g[K.G_HANDS]
        assert all(np.array_equal(a, b) for a, b in zip(paused, through))


def test_the_kernels_sim_runs_the_engines_jobs() -> None:
    from chasetheace import sim
    from chasetheace.fast import sim as fast_sim

    assert fast_sim.FastJob is sim.Job
    jobs = fast_sim._jobs(SimConfig(cta.Rules(), ("threshold:8",) * 3, seed=1, hands=2_500_000))
    assert [(job.index, job.hands) for job in jobs] == [(0, 1_000_000), (1, 1_000_000), (2, 500_000)]
