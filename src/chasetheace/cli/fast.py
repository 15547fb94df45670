"""``python -m chasetheace.fast`` (run by ``fast/__main__.py``): ``chase-the-ace simulate --engine
fast`` with the same options (``--help`` lists them; ``--engine`` may still be given to override).
"""

from __future__ import annotations

import sys

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Run ``simulate --engine fast`` with ``argv`` (``--engine`` may still be given to override)."""
    from . import main as cli_main

    args = list(sys.argv[1:] if argv is None else argv)
    if args in (["-h"], ["--help"]):
        print("python -m chasetheace.fast [OPTIONS]: bots against bots in the compiled kernel, that is\n"
              "`chase-the-ace simulate --engine fast [OPTIONS]`, whose options follow.\n")
        return cli_main(["simulate", "--help"])
    return cli_main(["simulate", "--engine", "fast", *args])


if __name__ == "__main__":
    sys.exit(main())
