"""The ``serve`` command: ``chase-the-ace serve`` and ``python -m chasetheace.web``."""

from __future__ import annotations

import argparse
import contextlib
import signal
import socket
import sys
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

from ..extras import needs_extra_text, needs_solver_text
from ..web.limits import Limits

_HELP = {
    "connections_per_client": "open connections from one IP address",
    "connections": "open connections in all",
    "tables_per_client": "tables one IP address may open per --table-window",
    "table_window": "seconds of --tables-per-client and --solves-per-client",
    "solves_per_client": "new rule sets one IP address may have solved (hints, reviews) per --table-window",
    "spectators_per_table": "spectators at one table",
    "public_tables": "tables shown in the public list",
    "idle_seconds": "close a connection silent this long (0: never)",
    "table_ttl": "delete a table nobody is at, with no move for this many seconds",
    "absent_grace": "seconds before an absent player's turn is played for them",
    "history_on_wire": "past events sent to a client that (re)joins",
    "rate": "messages per second per connection",
    "burst": "messages at once above the rate",
    "rate_per_client": "messages per second from one IP address over all its connections",
    "burst_per_client": "messages at once above --rate-per-client",
    "http_rate": "HTTP requests (and WebSocket handshakes) per second from one IP address",
    "http_burst": "HTTP requests at once above --http-rate",
    "head_bytes": "bytes of an HTTP request's line and headers (431 above)",
    "head_fields": "header lines of an HTTP request (431 above)",
    "head_seconds": "seconds for an HTTP request's headers to arrive (408 after)",
    "keep_alive_seconds": "seconds an idle HTTP connection is kept open",
    "sockets_per_client": "HTTP connections at once from one IP address (not from --forwarded-allow-ips)",
    "sockets": "connections and requests under way in all (503 above)",
    "strikes": "refused-for-rate messages before the connection is closed",
    "queue": "messages waiting for a slow client before it is dropped",
}

__all__ = ["register", "run", "main", "build_parser"]


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    parser.add_argument("--db", default="chase-the-ace.sqlite3",
                        help="SQLite database file (default ./chase-the-ace.sqlite3), or a PostgreSQL URL "
                             "postgresql://USER@HOST:PORT/DBNAME shared by any number of server processes "
                             "(the postgres extra; docs/deploy.md)")
    parser.add_argument("--bot-delay", type=float, default=0.8,
                        help="seconds a bot waits before it plays, so people can follow (default 0.8)")
    parser.add_argument("--log-level", default="warning", choices=["debug", "info", "warning", "error"],
                        help="server log level (default warning)")
    parser.add_argument("--solutions", metavar="DIR", default=None,
                        help="offer the solved bot, from the solutions in DIR (*.npz or *.json written by "
                             "'chase-the-ace solve --save', or the solution cache's *.npz; read once "
                             "at start)")
    parser.add_argument("--allow-origin", metavar="URL", action="append", default=[],
                        help="a web page origin (https://host) allowed to open the WebSocket besides "
                             "this server's own; repeat for more; '*' allows any")
    parser.add_argument("--allow-host", metavar="HOST", action="append", default=[],
                        help="a host name the server answers to (the Host header; cards.example.org); "
                             "repeat for more; '*.example.org' for subdomains, '*' for any (default: "
                             "the --host address, localhost, 127.0.0.1 and ::1)")
    parser.add_argument("--forwarded-allow-ips", metavar="IPS", default="127.0.0.1",
                        help="reverse proxies whose X-Forwarded-For names the client (default 127.0.0.1)")
    limits = parser.add_argument_group("limits (docs/deploy.md)")
    for f in fields(Limits):
        if f.name == "origins":
            continue
        default = getattr(Limits, f.name)
        limits.add_argument("--" + f.name.replace("_", "-"), type=type(default), default=default,
                            metavar="N", help=f"{_HELP.get(f.name, '')} (default {default:g})")


def register(subparsers: Any) -> None:
    """Add the ``serve`` subcommand to the CLI's subparsers."""
    parser = subparsers.add_parser("serve", help="serve the web table (play online with friends)",
                                   description="Serve the web table: open http://HOST:PORT/ in a browser.")
    _add_arguments(parser)
    parser.set_defaults(func=run)


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m chasetheace.web``."""
    parser = argparse.ArgumentParser(prog="python -m chasetheace.web", description="Serve the web table.")
    _add_arguments(parser)
    return parser


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted; a bad argument is one line on stderr and status 2."""
    try:
        import uvicorn  # noqa: F401  (the web extra is there)

        from ..web.app import create_app  # noqa: F401
    except ImportError as exc:
        print(f"chase-the-ace: error: {needs_extra_text('serve', 'web', missing=exc.name or 'uvicorn')}",
              file=sys.stderr)
        return 2
    if not 0 <= args.port <= 65535:
        print(f"chase-the-ace: error: bad port {args.port}: allowed 0..65535", file=sys.stderr)
        return 2
    if args.bot_delay < 0:
        print(f"chase-the-ace: error: bad --bot-delay {args.bot_delay}: allowed >= 0", file=sys.stderr)
        return 2
    try:
        limits = Limits(**{f.name: getattr(args, f.name) for f in fields(Limits) if f.name != "origins"},
                        origins=tuple(args.allow_origin))
    except ValueError as exc:
        print(f"chase-the-ace: error: {exc}", file=sys.stderr)
        return 2
    try:
        from ..web.guards import allowed_hosts

        hosts = allowed_hosts(args.allow_host or _default_hosts(args.host))
    except ValueError as exc:
        print(f"chase-the-ace: error: {exc}", file=sys.stderr)
        return 2
    try:
        from ..web.botkinds import WebBots

        bots = WebBots.from_folder(args.solutions)
    except ImportError as exc:
        print(f"chase-the-ace: error: {needs_solver_text('--solutions', missing=exc.name)}",
              file=sys.stderr)
        return 2
    except (ValueError, OSError) as exc:
        print(f"chase-the-ace: error: {exc}", file=sys.stderr)
        return 2
    try:  # the port first: a port in use leaves no database file and no lock file behind
        sock = _listen(args.host, args.port)
    except OSError as exc:
        print(f"chase-the-ace: error: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}",
              file=sys.stderr)
        return 2
    with sock:
        return _locked(args, limits, bots, hosts, sock)


def _locked(args: argparse.Namespace, limits: Any, bots: Any, hosts: list[str],
            sock: socket.socket) -> int:
    """Serve on ``sock`` holding the database's lock (a SQLite file: one server per database)."""
    from ..web.lock import DatabaseInUseError, DatabaseLock
    from ..web.store import is_url

    if is_url(args.db):  # many processes share a PostgreSQL database: no lock
        return _serve(args, limits, bots, hosts, sock)
    try:
        lock = DatabaseLock(args.db)
    except ValueError as exc:
        print(f"chase-the-ace: error: {exc}", file=sys.stderr)
        return 2
    try:
        lock.acquire()
    except DatabaseInUseError as exc:
        print(f"chase-the-ace: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"chase-the-ace: error: cannot open database {args.db!r} (its lock file {lock.path!r}): "
              f"{exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        return _serve(args, limits, bots, hosts, sock)
    finally:
        lock.release()


def _default_hosts(address: str) -> list[str]:
    """The host names answered when the operator names none: the listening address (unless it
    is every address) and loopback's names."""
    listening = [] if address in ("0.0.0.0", "::", "") else [address]
    return [*listening, "localhost", "127.0.0.1", "::1"]


def _serve(args: argparse.Namespace, limits: Any, bots: Any, hosts: list[str],
           sock: socket.socket) -> int:
    import uvicorn

    from ..web.app import create_app
    from ..web.databases import is_url, open_store
    from ..web.listener import uvicorn_config

    shown = args.db
    try:
        if is_url(args.db):
            from ..web.pgstore import mask_url

            shown = mask_url(args.db)
        open_store(args.db).close()
    except ImportError as exc:
        print(f"chase-the-ace: error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # a database that cannot be opened is a user's mistake
        text = str(exc) if is_url(args.db) else f"cannot open database {args.db!r}: {exc}"
        print(f"chase-the-ace: error: {text}", file=sys.stderr)
        return 2
    app = create_app(args.db, bot_delay=args.bot_delay, manage_gc=True, limits=limits, bots=bots,
                     lock=False, hosts=hosts)
    port = sock.getsockname()[1]
    print(f"chase-the-ace: serving on http://{args.host}:{port}/ (database {shown})", flush=True)
    if not args.allow_host and args.host in ("0.0.0.0", "::", ""):
        print("chase-the-ace: listening on every address but answering only to localhost: name the "
              "host names clients use with --allow-host", file=sys.stderr, flush=True)
    _raise_file_limit(limits.sockets)
    config = uvicorn_config(app, limits, forwarded_allow_ips=args.forwarded_allow_ips,
                            log_level=args.log_level)
    server = uvicorn.Server(config)
    # uvicorn shuts down gracefully on SIGTERM, then raises the signal again with the handler
    # found at its start: this one, so the process ends as a clean exit 0, not "killed by signal 15"
    terminated = signal.signal(signal.SIGTERM, _exit_cleanly)
    try:
        with contextlib.suppress(KeyboardInterrupt):
            server.run(sockets=[sock])
    finally:
        signal.signal(signal.SIGTERM, terminated)
    return 0 if server.started or server.should_exit else 1


def _exit_cleanly(signum: int, frame: Any) -> None:
    """SIGTERM outside uvicorn's own handling (before it serves, or once it has shut down): exit 0."""
    raise SystemExit(0)


def _raise_file_limit(sockets: int) -> None:
    """Let the process open as many files as its hard limit allows (each socket is one), and say
    so if that is fewer than ``--sockets`` needs."""
    try:
        import resource
    except ImportError:  # Windows
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = sockets + 256  # the database, the static files, the solver's pipes...
    if soft != resource.RLIM_INFINITY and soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
    if soft != resource.RLIM_INFINITY and soft < wanted:
        print(f"chase-the-ace: note: the process may open {soft} files, fewer than --sockets {sockets} "
              "needs: lower --sockets or raise the limit (ulimit -n)", file=sys.stderr, flush=True)


def _listen(host: str, port: int) -> socket.socket:
    """A bound socket for the server, so a port in use is a clear error before anything starts."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m chasetheace.web``."""
    return run(build_parser().parse_args(argv))


if __name__ == "__main__":  # ``python -m chasetheace.web`` runs this module (see web/__main__.py)
    sys.exit(main())
