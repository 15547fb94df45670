"""What one move costs the web server as a game grows long: the bot's choice, the engine's move,
the save, and a state message to every seat (12 seats, lives 99), without sockets.

Plays one table of 12 counting bots with a person watching each seat (fake connections that are
emptied after every move), and prints the mean cost of a move over the ``--window`` moves
before each of the ``--at`` marks (moves played). Figures are for this machine, now.

    python benchmarks/web_update_cost.py                      # marks 100, 1000, 3000, 9000
    python benchmarks/web_update_cost.py --at 100 500         # a quick look
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time

from chasetheace.web import protocol as P
from chasetheace.web.app import Connection, Server
from chasetheace.web.store import Store


class _Socket:
    """Stands in for a WebSocket: the benchmark empties the queue itself."""


async def run(marks: list[int], window: int, seats: int) -> list[tuple[int, float, int]]:
    server = Server(Store(":memory:"), bot_delay=0)
    table, _, _ = server.lobby.create(P.Create("Ann", seats=seats, bots="counting", options={"lives": 99}))
    table.start(0)
    table.seat_kinds = ["counting"] * seats  # every seat a bot, each watched by one connection
    conns = []
    for seat in range(seats):
        conn = Connection(_Socket())  # type: ignore[arg-type]
        conn.table, conn.seat = table, seat
        server.watchers.setdefault(table.id, set()).add(conn)
        conns.append(conn)
    results = []
    moves, spent, sizes = 0, 0.0, 0
    mark = iter(sorted(marks))
    target = next(mark, None)
    while target is not None:
        game = table.game
        assert game is not None
        if game.over:
            print(f"the game ended after {moves} moves, before {target}", file=sys.stderr)
            break
        mover = game.to_act
        assert mover is not None
        start = time.perf_counter()
        table.act(mover, table.bot_action(mover), "bot")
        server.broadcast(table)
        elapsed = time.perf_counter() - start
        moves += 1
        size = 0
        for conn in conns:
            while not conn.queue.empty():
                text = conn.queue.get_nowait()
                size += len(text or "")
        if moves > target - window:
            spent += elapsed
            sizes += size
        if moves == target:
            results.append((target, spent / window * 1000, sizes // window))
            spent, sizes = 0.0, 0
            target = next(mark, None)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--at", type=int, nargs="+", default=[100, 1000, 3000, 9000])
    parser.add_argument("--window", type=int, default=50)
    parser.add_argument("--seats", type=int, default=12)
    args = parser.parse_args()
    if not (2 <= args.seats <= 12 and 1 <= args.window <= min(args.at)):
        parser.error("seats 2..12, window 1..the smallest mark")
    for moves, ms, size in asyncio.run(run(args.at, args.window, args.seats)):
        print(f"after {moves:5d} moves: {ms:8.3f} ms per move (bot, engine, save, {args.seats} state "
              f"messages), {size:7d} bytes sent per move")
    return 0


if __name__ == "__main__":
    sys.exit(main())


