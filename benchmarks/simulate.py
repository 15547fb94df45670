"""How fast `chase-the-ace simulate` plays: hands per second by bot and number of workers.

Run: .venv/bin/python benchmarks/simulate.py [--hands N]
"""

from __future__ import annotations

import argparse

from chasetheace import Rules
from chasetheace.sim import SimConfig, simulate


def main() -> None:
    """Print hands per second for a few tables, with one and two worker processes."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=20000)
    args = parser.parse_args()
    tables = [("threshold:8 x5", ("threshold:8",) * 5, args.hands),
              ("random x5", ("random",) * 5, args.hands),
              ("counting + threshold:8 x4", ("counting",) + ("threshold:8",) * 4, args.hands // 10)]
    print(f"{'table':28} {'workers':>7} {'hands':>7} {'seconds':>8} {'hands/s':>9}")
    for label, bots, hands in tables:
        for workers in (1, 2):
            result = simulate(SimConfig(rules=Rules(), bots=bots, seed=1, hands=hands), workers=workers)
            print(f"{label:28} {workers:>7} {result.tally.hands:>7} {result.seconds:>8.2f} "
                  f"{result.hands_per_second:>9,.0f}")


if __name__ == "__main__":
    main()
