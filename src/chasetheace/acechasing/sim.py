"""Ace Chasing's simulator: bots against bots, with the statistics of RULES.md part B (the matador's
survival, knockouts by place in the deal, wins and money by seat).

>>> result = simulate_ace_chasing(players=5, bots=["odds"], games=20, seed=1)
>>> result["games"], sum(row["wins"] for row in result["win_rate_by_seat"])
(20, 20)
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, assert_never

from ..events import Dealt, Eliminated, GameOver, Keep, Shuffle, Swap
from ..rates import counted, rate_row
from .events import BetAccepted, BetDeclined, BettingClosed, Offered, RoundStarted, Settled, Shown
from .game import AceChasingGame
from .kind import bot_specs, make_ace_chasing_bot

__all__ = ["simulate_ace_chasing", "format_simulation"]


def _place(index: int, size: int) -> str:
    if index == size - 1:
        return "matador"
    return {0: "1st", 1: "2nd", 2: "3rd"}.get(index, f"{index + 1}th")


def simulate_ace_chasing(*, players: int = 5, bots: Sequence[str] = ("odds",), games: int = 1000,
                         seed: int = 1, shuffle_seats: bool = False) -> dict[str, Any]:
    """Bots against bots for ``games`` games; the statistics as one JSON-serialisable dict.

    Seat 0 is the first matador of every game. With ``shuffle_seats`` the bots are seated in a
    fresh random order every game (drawn from ``seed``), so that each meets every place and every
    neighbour; ``by_bot`` sums each bot's games wherever it sat (for comparing bots). The numbers
    depend only on the arguments.
    """
    specs = bot_specs(bots, players, "seats")
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ValueError(f"bad number of games {games!r}: at least 1")
    AceChasingGame(players)  # checks the player count
    rng = random.Random(f"ace-chasing/{seed}")
    place_rounds: Counter[str] = Counter()
    place_out: Counter[str] = Counter()
    wins = [0] * players
    money = [0] * players
    rounds = survived = bets = staked = 0
    kinds = list(dict.fromkeys(specs))
    per_bot = {b: Counter[str]() for b in kinds}
    start = time.perf_counter()
    for _ in range(games):
        game = AceChasingGame(players, rng=random.Random(rng.getrandbits(64)))
        seated = specs
        if shuffle_seats:
            seated = list(specs)
            rng.shuffle(seated)
        robots = [make_ace_chasing_bot(s) for s in seated]
        choices = random.Random(rng.getrandbits(64))
        while game.to_act is not None:
            seat = game.to_act
            game.act(robots[seat].choose(game.observation(seat), game.legal_actions(), choices))
        order: tuple[int, ...] = ()
        for ev in game.events:
            match ev:
                case RoundStarted():
                    order = ev.order
                    rounds += 1
                case BetAccepted():
                    bets += 1
                    staked += ev.amount
                case Settled():
                    survived += ev.survived
                    per_bot[seated[ev.matador]]["matador_rounds"] += 1
                    per_bot[seated[ev.matador]]["matador_survived"] += ev.survived
                case Eliminated():
                    for i, s in enumerate(order):
                        place = _place(i, len(order))
                        place_rounds[place] += 1
                        place_out[place] += s in ev.seats
                        if i < len(order) - 1:
                            per_bot[seated[s]]["player_rounds"] += 1
                            per_bot[seated[s]]["player_out"] += s in ev.seats
                case (Shuffle() | Dealt() | Offered() | BetDeclined() | BettingClosed() | Keep() | Swap()
                      | Shown() | GameOver()):
                    pass  # counted by the events above
                case other:
                    assert_never(other)
        wins[game.winners[0]] += 1
        money = [a + b for a, b in zip(money, game.money)]
        for s, spec in enumerate(seated):
            per_bot[spec]["games"] += 1
            per_bot[spec]["wins"] += s == game.winners[0]
            per_bot[spec]["money"] += game.money[s]
    seconds = time.perf_counter() - start
    places = [_place(i, players) for i in range(players - 1)] + ["matador"]
    return {
        "game": "ace-chasing",
        "players": players,
        "bots": specs,
        "seed": seed,
        "games": games,
        "rounds": rounds,
        "matador_survival": rate_row({}, survived, rounds, key="survived", total="rounds"),
        "knocked_out_by_place": [
            rate_row({"place": p}, place_out[p], place_rounds[p], key="out", total="rounds")
            for p in places if place_rounds[p]],
        "win_rate_by_seat": [
            rate_row({"seat": s, "bot": "any (shuffled)" if shuffle_seats else specs[s]}, wins[s], games,
                     key="wins", total="games")
            for s in range(players)],
        "shuffle_seats": shuffle_seats,
        "by_bot": [_bot_row(b, per_bot[b]) for b in kinds],
        "money_by_seat": money,
        "money_per_game_by_seat": [round(m / games, 4) for m in money],
        "bets": {"standing": bets, "mean_amount": round(staked / bets, 4) if bets else 0.0},
        "seconds": round(seconds, 3),
        "rounds_per_second": round(rounds / seconds, 1) if seconds > 0 else 0.0,
    }


def _bot_row(spec: str, c: Counter[str]) -> dict[str, Any]:
    """One bot's games wherever it sat: wins, money per game, its survival as the matador and its
    knockouts as a player."""
    return {**rate_row({"bot": spec}, c["wins"], c["games"], key="wins", total="games"),
            "money_per_game": round(c["money"] / c["games"], 4) if c["games"] else 0.0,
            "matador_survival": rate_row({}, c["matador_survived"], c["matador_rounds"],
                                         key="survived", total="rounds"),
            "knocked_out_as_player": rate_row({}, c["player_out"], c["player_rounds"],
                                              key="out", total="rounds")}


def format_simulation(result: Mapping[str, Any]) -> list[str]:
    """The statistics of :func:`simulate_ace_chasing` as lines of text."""
    def pct(row: Mapping[str, Any]) -> str:
        lo, hi = row["ci95"]
        return f"{100 * row['rate']:5.1f}%  (95% CI {100 * lo:.1f}% .. {100 * hi:.1f}%)"

    lines = [f"Ace Chasing · {result['players']} players · seed {result['seed']}: "
             f"{counted(result['games'], 'game')}, {counted(result['rounds'], 'round')}",
             f"The matador survives {pct(result['matador_survival'])}",
             "Knocked out per round, by place in the deal (1st: the matador's left):"]
    lines += [f"  {row['place']:>8}  {row['out']:>7,} / {row['rounds']:<7,} {pct(row)}"
              for row in result["knocked_out_by_place"]]
    lines.append("Games won and money per game, by seat (seat 0 is the first matador):")
    lines += [f"  seat {row['seat']:>2} {row['bot']:<24} {pct(row)}  money {m:+.2f}"
              for row, m in zip(result["win_rate_by_seat"], result["money_per_game_by_seat"])]
    if len(result["by_bot"]) > 1 or result["shuffle_seats"]:
        moved = "seats shuffled every game" if result["shuffle_seats"] else "in fixed seats"
        lines.append(f"By bot ({moved}): games won, money per game, survival as the matador, "
                     "knocked out as a player:")
        lines += [f"  {row['bot']:<24} {pct(row)}  money {row['money_per_game']:+.2f}  "
                  f"matador survives {100 * row['matador_survival']['rate']:5.1f}%  "
                  f"out {100 * row['knocked_out_as_player']['rate']:5.1f}%"
                  for row in result["by_bot"]]
    lines.append(f"Bets that stood: {result['bets']['standing']:,}, "
                 f"mean amount {result['bets']['mean_amount']:.2f}")
    lines.append(f"{result['rounds']:,} rounds in {result['seconds']:.2f} s: "
                 f"{result['rounds_per_second']:,.0f} rounds per second.")
    return lines
