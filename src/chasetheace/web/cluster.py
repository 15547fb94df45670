"""Several server processes on one PostgreSQL database: fan-out, presence, leases, failover.

Any process may apply a person's move at any table: it saves the move under the next number of
the game, and the primary key ``(table, game, number)`` lets exactly one process save each
number (a loser reads the table again; :class:`~.store.StoreConflict`). So moves are applied
one at a time, in one order, whatever process their player is connected to, and no hop to
another process stands between a click and its answer. Each write also sends a NOTIFY on
the table's own channel (:mod:`.pgstore`); this process LISTENs, on a connection of its own, on
the channels of the tables it has in memory or is loading (LISTEN before a table is read, so no
write after the read goes unheard; UNLISTEN at a heartbeat once it let the table go: a process is
not woken by the moves of tables it does not hold) and, for each of them, reads the moves it is
missing, replays them on its copy of the game (deterministic
from the seed, checked against the stored events) and sends each of its clients its own view.

Bots, absent players' moves and turn timers run in one process per table: the holder of the
table's lease (a row in ``leases`` with an expiry; renewed every :attr:`Cluster.beat` seconds,
lasting :attr:`Cluster.lease`). A process wants the lease of each table where it has a person
seated and connected; when the holder dies (kill -9), its lease runs out and a process that
wants the table takes it within ``lease`` seconds (each heartbeat says when the first lease held
elsewhere on a table it wants runs out, and the next beat comes just after), reads the table
from the database and goes on with its bots and timers. Should two processes ever run a bot's
move at once (a holder paused past its lease), the primary key still lets one of them save it.

Which seats have a person connected (bots and timers wait while nobody is there; an absent
player's turn is played for them) is shared in ``presence``, changed at once when someone comes or
goes (and announced), and stated afresh by a heartbeat after the database was away. A change no
notification announced (one stated by a heartbeat, a lost ``NOTIFY``, a process that died or beats
again after a pause) is found by the heartbeats, which read who is connected elsewhere at each
table they check (:meth:`Cluster._unheard_presence`); with it, the turn timer's deadline as saved
(:meth:`Cluster._unheard_turns`) and when each seat connected elsewhere was taken there (a seat
taken over from a connection here whose notice was lost: :meth:`Cluster._unheard_takeovers`).

A person's move, and a bot's or a timer's, is saved without holding up the event loop: the
engine plays it, the table is :attr:`~.tables.Table.saving` (nobody is told of it, other messages
about the table wait) while its write is awaited on a connection of the moves' own (psycopg's
asynchronous API: no thread, no lock handed between threads for the busiest call), and then
everyone is told, or, if the database refused it or did not answer within :attr:`.PgStore.wait`
seconds, the copy is rebuilt from the database in the loader thread. So a slow or hung database
never holds up the event loop (pings, other tables). Notifications are read as they come, all
those waiting at once, straight from the listening connection's socket.

When PostgreSQL goes away (the listener's connection drops) or stops answering (a probe, every
:attr:`Cluster.probe_every` seconds on a connection of its own, gets no answer within
:attr:`Cluster.probe_timeout`), every client is told (an ``error`` with code
``database_unavailable``), moves are refused at once, and when it answers again every table in
memory is read again (off the loop) and play resumes (a ``notice``, ``database_back``).
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import functools
import json
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import Any, Protocol

from . import movetrace
from . import protocol as P
from .pgstore import PgStore, listen_text
from .saving import Saver
from .store import SCHEMA_VERSION, StoreConflict, StoredAction, StoredGame, StoredTable, StoreUnavailable
from .tables import HUMAN, AlreadyApplied, Lobby, Table


class _Client(Protocol):
    table: Table | None
    seat: int | None

    def send(self, text: str) -> None: ...


class Server(Protocol):
    """What the cluster needs of the app's server (:class:`~.app.Server`)."""

    @property
    def lobby(self) -> Lobby: ...
    @property
    def watchers(self) -> Mapping[str, Any]: ...
    @property
    def open(self) -> Any: ...
    @property
    def loading(self) -> Mapping[str, Any]: ...
    def changed(self, table: Table) -> None: ...
    def reschedule(self, table: Table) -> None: ...
    def broadcast(self, table: Table, only: Any = None) -> None: ...
    def replace_seat(self, table: Table, seat: int, at: float | None = None) -> None: ...
    def rebuild_soon(self, table: Table) -> None: ...
    async def load(self, table_id: str) -> None: ...
    def dispatch(self, conn: Any, msg: P.ClientMessage) -> None: ...
    def store_trouble(self, conn: Any, exc: Exception) -> None: ...
    def human_check(self, table: Table, seat: int, act_id: str | None) -> None: ...
    def release(self, table: Table) -> None: ...

__all__ = ["Cluster"]


def _marks(table: Table) -> tuple[Any, ...]:
    """What a read of the table made before a change here would undo: its people (seats, tokens,
    recovery codes), its game and moves."""
    return list(table.people), table.game_no, table.moves, list(table.seat_kinds)

log = logging.getLogger("chasetheace.web.cluster")


class ClockReadings:
    """The database's clock less this process's, from the last readings (one a heartbeat).

    A reading of the database's time ``now`` asked at ``before`` and answered at ``after`` (this
    process's clock) proves the offset lies between ``now - after`` and ``now - before``; its
    middle is off by up to half the wait. On a busy machine a wait is tens of milliseconds, enough
    to misorder two processes' seat takings made that close together (which of two connections
    keeps a seat), so the offset is the middle of the quickest of the last ``keep`` readings. A
    reading that contradicts an earlier one (their bounds more than a millisecond apart) means a
    clock was set meanwhile: the earlier ones are dropped."""

    def __init__(self, keep: int = 30) -> None:
        self.readings: collections.deque[tuple[float, float]] = collections.deque(maxlen=keep)

    def add(self, now: float, before: float, after: float) -> float:
        """Take a reading; the offset (seconds) from the readings kept."""
        low, high = now - after, now - before
        if any(low > h + 0.001 or high < lo - 0.001 for lo, h in self.readings):
            self.readings.clear()
        self.readings.append((low, high))
        low, high = min(self.readings, key=lambda r: r[1] - r[0])
        return (low + high) / 2


class Cluster(Saver):
    """This process's part in a server of several processes on one PostgreSQL database."""

    probe_every = 0.25
    """Seconds between two probes of the database."""
    listen_batch = 200
    """The most channels one LISTEN or UNLISTEN text names: a heartbeat that finds many tables
    loaded or let go at once sends a few texts, each answered in one go (benchmarks/listen_channels.py)."""
    check_batch = 200
    """The most tables whose place in the database (seats, game, moves, people connected through
    other processes) one heartbeat reads, to find writes and changes of people whose notification
    never came (:meth:`_unheard_writes`, :meth:`_unheard_presence`): for 200 tables about 1.3 ms
    of this process's CPU and 2 ms of the database's a beat (``benchmarks/heartbeat_check.py``);
    a process holding more checks each in turn."""
    probe_timeout = 1.0
    """A probe not answered within this many seconds fails; no answer for twice as long: the
    database counts as unavailable (one slow answer on a busy machine does not)."""

    def __init__(self, server: Server, store: PgStore, *, lease: float = 3.0, beat: float = 1.0) -> None:
        super().__init__(server, store)
        self.store: PgStore = store
        self.lease, self.beat = lease, beat
        self.answering = True  # the last probe was answered in time
        # the database's clock less this process's (seconds): turn timers are shared on the
        # database's clock, so a process whose clock is off still shows and keeps the right time
        self.offset = 0.0
        self.clock_read = False  # the offset was measured (idle tables expire only then)
        self.clock_readings = ClockReadings()
        self.newer: int | None = None  # the newer schema version found in the database, if any
        self.started = False  # the database was available once
        self.moving: set[asyncio.Task[None]] = set()  # people's moves being played and saved
        # table -> moves notified while this process saved one of its own there: applied after it
        self.held_moves: dict[str, list[str]] = {}
        self.held: dict[str, float] = {}  # table -> until when (monotonic) this process holds its lease
        # seconds until the first lease held elsewhere on a table wanted here runs out (last beat)
        self.lease_ends: float | None = None
        self.elsewhere: dict[str, set[int]] = {}  # table -> seats connected to other processes
        self.dirty: set[str] = set()  # tables to read again
        self.seats_dirty: set[str] = set()  # tables whose people connected elsewhere changed
        # table -> the position (game, events) whose turn timer runs out when (seconds since the epoch)
        self.turns: dict[str, tuple[tuple[int, int], float]] = {}
        self.unshared: dict[str, tuple[tuple[int, int], float]] = {}  # of those, writes that failed
        self.wake = asyncio.Event()
        self.up = False  # the listener is connected
        # the tables whose channels the listening connection LISTENs on (or is about to: the
        # commands go in order), those it has in memory or is loading; its connection (libpq's),
        # the commands waiting for it, and the one sent whose answer is awaited
        self.channels: set[str] = set()
        self.listener: Any = None
        self.commands: collections.deque[tuple[bytes, asyncio.Future[None]]] = collections.deque()
        self.sent: asyncio.Future[None] | None = None
        self.flushing: int | None = None  # the listener's socket, while libpq has a command to send
        # the last LISTEN on the channel of a table created here, while it is on its way, and the
        # presence writes kept back until it is in (so this process hears its own announcements)
        self.gate: asyncio.Future[None] | None = None
        self.gated: collections.deque[Callable[[], None]] = collections.deque()
        self.tasks: list[asyncio.Task[None]] = []
        self.writer = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="cta-presence")
        self.restate = True  # the next heartbeat states this process's presence afresh
        self.dead: set[str] = set()  # the processes known to be dead (their presence is ignored)
        # shown by /healthz: notifications heard, moves applied from them, tables read, moves saved,
        # games started from them; the microseconds the moves saved waited for their commit (from
        # sending the write to its answer: the database's part of a move's latency); writes found
        # by a heartbeat that no notification announced (:meth:`_unheard_writes`), and changes of
        # who is connected elsewhere found so (:meth:`_unheard_presence`), and turn timers' deadlines
        # (:meth:`_unheard_turns`) and seats taken from people here (:meth:`_unheard_takeovers`);
        # heartbeats the database answered
        self.counts = {"notified": 0, "moves_applied": 0, "moves_known": 0, "tables_read": 0,
                       "moves_saved": 0, "games_applied": 0, "save_wait_us": 0, "writes_unheard": 0,
                       "presence_unheard": 0, "timers_unheard": 0, "takeovers_unheard": 0, "beats": 0}
        # tables the database had further on than their copy here at the last heartbeat: where, and
        # since when (monotonic): read again if still so at a later beat (:meth:`_unheard_writes`)
        self.behind: dict[str, tuple[tuple[int, int, int], float]] = {}
        self.checked: dict[str, float] = {}  # table -> when (monotonic) a heartbeat last read its place
        # tables whose seats connected elsewhere the database had otherwise than this process at the
        # last heartbeat: as the database had them, and since when (monotonic) (:meth:`_unheard_presence`)
        self.presence_behind: dict[str, tuple[set[int], float]] = {}
        # tables whose current turn's deadline the database had otherwise than this process at the
        # last heartbeat: (as saved, as held here), and since when (monotonic) (:meth:`_unheard_turns`)
        self.turns_behind: dict[str, tuple[tuple[Any, Any], float]] = {}
        # tables with a seat held here that the database shows taken later through another process at
        # the last heartbeat: those seats with that taking, and since when (:meth:`_unheard_takeovers`)
        self.takeovers_behind: dict[str, tuple[dict[int, tuple[float, str]], float]] = {}

    @property
    def process(self) -> str:
        return self.store.process

    def start(self) -> None:
        self.tasks = [asyncio.create_task(self._listen()), asyncio.create_task(self._beats()),
                      asyncio.create_task(self._catch_up()), asyncio.create_task(self._watch())]

    @property
    def available(self) -> bool:
        """Whether the database is there: the listener connected and the last probe answered."""
        return self.up and self.answering

    async def stop(self) -> None:
        self.writer.shutdown(wait=True)
        for task in [*self.tasks, *self.moving]:
            task.cancel()
        for task in [*self.tasks, *self.moving]:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.store.close_moves()

    # --- leases ---------------------------------------------------------------------------------

    def holds(self, table_id: str) -> bool:
        """Whether this process runs the table's bots and timers now."""
        return self.held.get(table_id, 0.0) > time.monotonic()

    def wanted(self) -> list[str]:
        """The tables this process wants the lease of: where a person of its is seated."""
        return sorted(t for t, conns in self.server.watchers.items()
                      if any(c.seat is not None for c in conns))

    async def _beats(self) -> None:
        while True:
            self.tidy_channels()
            try:
                await self.heartbeat()
            except Exception:
                log.exception("cluster heartbeat failed")
            # a lease of a table wanted here that runs out before the next beat (its holder
            # died): beat again just after, so the table stands still no longer than the lease
            soonest = self.lease_ends
            await asyncio.sleep(self.beat if soonest is None else min(self.beat, soonest + 0.05))

    async def heartbeat(self) -> None:
        """Say this process is alive, with its people; take, renew or give up leases."""
        server = self.server
        present = None
        if self.restate:  # at the start, and after the database was away: state every seat afresh
            taking: dict[tuple[str, int], float] = {}  # each seat: when its person here took it
            for conns in server.watchers.values():
                for c in conns:
                    if c.table is not None and c.seat is not None:
                        key = (c.table.id, c.seat)
                        taking[key] = max(taking.get(key, c.seated_at), c.seated_at)
            present = sorted((t, s, w) for (t, s), w in taking.items())
        wanted = self.wanted()
        asked = time.monotonic()
        self.lease_ends = None
        clock: list[tuple[float, int | None, float, float]] = []  # the database's clock, read first
        positions = dict.fromkeys(self._to_check(), (0, 0, 0))
        there: dict[str, set[int]] = {}  # each table checked: its seats connected elsewhere
        saved_turns: dict[str, tuple[int, int, float] | None] = {}  # and its turn timer as saved
        takers: dict[str, dict[int, tuple[float, str]]] = {}  # and the seats taken elsewhere: when, where
        try:
            held, gained, seats, self.dead, self.lease_ends = await asyncio.to_thread(
                self.store.beat, present, wanted, sorted(self.held), self.lease, self.lease, self.dead, clock,
                positions, there, saved_turns, takers)
        except StoreUnavailable:
            return  # the leases run out by themselves: bots and timers stop here
        finally:
            if clock:
                self._clock_read(*clock[0])
        self.counts["beats"] += 1
        self._unheard_writes(positions)
        for t in seats:  # (their people as read with this beat are taken just below)
            self.presence_behind.pop(t, None)
        self._unheard_presence({t: s for t, s in there.items() if t not in seats})
        # (a table just taken is read as saved below, its turn timer with it)
        self._unheard_turns({t: u for t, u in saved_turns.items() if t not in gained}, held)
        self._unheard_takeovers({t: takers.get(t, {}) for t in there})
        if present is not None:
            self.restate = False
        self._turns_again()  # the database answered: turn timers it missed go again
        until = asked + self.lease - 0.5  # a margin: stop before the database's expiry passes
        # only the tables whose holding or people changed are looked at again (a steady beat
        # renews its leases and touches no table): held again after this process's margin ran
        # out (a late beat), or with a person gone with a dead process, its bots and timers are
        # set again; taken from another process (or after a break), it is read as saved first
        was = {t for t in self.held if self.holds(t)}
        self.held = {t: until for t in held}
        moved = gained | (held ^ was)
        people = set()  # tables whose people connected elsewhere changed: their clients are told
        for t, s in seats.items():
            if self.elsewhere.get(t) != s:
                if self.elsewhere.get(t, set()) != s:
                    people.add(t)
                self.elsewhere[t] = s
                moved.add(t)
        for table_id in sorted(moved):
            table = server.lobby.tables.get(table_id)
            if table is None:
                continue
            if table_id in gained:  # taken over: read the table as saved, then go on with it
                await self.refresh_off_loop(table)
                if table_id in people:  # (the read found them as this beat left them: not told)
                    server.changed(table)
            elif table_id in people:
                server.changed(table)
            else:
                server.reschedule(table)

    def _unheard_writes(self, positions: dict[str, tuple[int, int, int]]) -> None:
        """Tables the database has further on than this process's copy (seats, game, moves: read
        with a heartbeat) at two heartbeats in a row, at least half a beat apart, and not caught
        up with meanwhile: a write whose notification never came (its process killed, or its
        connection broken, between its commit and its ``NOTIFY``), so the table is read again.
        Found at the second beat after the write: within two beats and a read (a write merely
        racing its notification is applied from it long before, and is not read twice); with
        more than :attr:`check_batch` tables in memory, within as many beats as it takes to
        come round to the table, and one more."""
        now = time.monotonic()
        behind: dict[str, tuple[tuple[int, int, int], float]] = {}
        for table_id, there in positions.items():
            table = self.server.lobby.tables.get(table_id)
            if table is None or table.stale or table.saving:
                continue
            here = (len(table.people), table.game_no, table.moves)
            if not (there[0] > here[0] or there[1:] > here[1:]):
                continue
            seen = self.behind.get(table_id)
            if seen is None or not (seen[0][0] > here[0] or seen[0][1:] > here[1:]):
                behind[table_id] = (there, now)  # (what was seen before is in this copy now)
            elif now - seen[1] < self.beat / 2:
                behind[table_id] = seen
            else:
                self.counts["writes_unheard"] += 1
                log.warning("table %s: a write saved by another process was never announced; reading it",
                            table_id)
                self.dirty.add(table_id)
                self.wake.set()
        # (a table not checked at this beat keeps what an earlier one saw)
        self.behind = {**{t: v for t, v in self.behind.items() if t not in positions
                          and t in self.server.lobby.tables}, **behind}

    def _unheard_presence(self, there: dict[str, set[int]]) -> None:
        """Tables whose seats with a person connected to another live process (read with a
        heartbeat) are not those this process shows, at two heartbeats in a row, at least half a
        beat apart, and not caught up with meanwhile: a change of who is connected that no
        notification announced (presence stated afresh by a heartbeat after the database was
        away or a write failed, a ``NOTIFY`` lost, a process that died or beats again after a
        pause), so those seats are read again (all such tables in one statement). Found as
        :meth:`_unheard_writes` finds a write: within two beats and a read (a change racing its
        notification is not read twice)."""
        now = time.monotonic()
        tables = self.server.lobby.tables
        behind: dict[str, tuple[set[int], float]] = {}
        found = []
        for table_id, seats in there.items():
            here = self.elsewhere.get(table_id, set())
            if table_id not in tables or seats == here:
                continue
            seen = self.presence_behind.get(table_id)
            if seen is None or seen[0] == here:
                behind[table_id] = (seats, now)  # (what was seen before is in this copy now)
            elif now - seen[1] < self.beat / 2:
                behind[table_id] = seen
            else:
                found.append(table_id)
        if found:  # (one line: a process that died may have had people at many tables)
            self.counts["presence_unheard"] += len(found)
            log.warning("who is connected elsewhere changed unannounced at %d table(s) (%s): reading them "
                        "(a process died or beats again, or a notification was lost)", len(found),
                        ", ".join(found[:5]) + (", ..." if len(found) > 5 else ""))
            self.seats_dirty.update(found)
            self.wake.set()
        self.presence_behind = {**{t: v for t, v in self.presence_behind.items() if t not in there
                                   and t in tables}, **behind}

    def _unheard_turns(self, there: dict[str, tuple[int, int, float] | None], held: set[str]) -> None:
        """Tables whose current turn's timer (read with a heartbeat: as saved, :meth:`~.PgStore.set_turn`)
        is not the one this process holds, at two heartbeats in a row, at least half a beat apart,
        and the same difference both times (a deadline racing its notification is not corrected):
        a deadline whose ``NOTIFY`` was lost (its process killed or its connection broken between
        the commit and the ``NOTIFY``), or one lost by the database (its commit does not wait for
        the disk: a crash of PostgreSQL may lose it). On a process that does not run the table's
        timers, the saved deadline is taken and its clients are told the time left; on the
        holder of the table's lease (``held``: as this beat renewed them) whose timer runs to a
        deadline of its own for this turn, that deadline is written again (with its ``NOTIFY``:
        every process shows it). Only the turn this copy of the table is at is compared: a
        deadline saved for a later position comes with moves this process has not heard of,
        found by :meth:`_unheard_writes`, whose read takes the deadline with it."""
        now = time.monotonic()
        tables = self.server.lobby.tables
        behind: dict[str, tuple[tuple[Any, Any], float]] = {}
        for table_id, saved in there.items():
            table = tables.get(table_id)
            game = None if table is None else table.game
            if table is None or table.stale or table.saving or game is None or game.over:
                continue
            marker = (table.game_no, len(game.events))
            mine = self.turns.get(table_id)
            stored = None if saved is None else ((saved[0], saved[1]), saved[2])
            if stored is not None and stored[0] > marker:
                continue  # this copy is behind: read with the moves it misses (:meth:`_unheard_writes`)
            own = table_id in held and mine is not None and mine[0] == marker
            if own:
                if stored == mine or table_id in self.unshared:  # (a failed write is written again anyway)
                    continue
            elif stored is None or stored[0] != marker or stored == mine:
                continue
            seen = self.turns_behind.get(table_id)
            if seen is None or seen[0] != (stored, mine):
                behind[table_id] = ((stored, mine), now)
            elif now - seen[1] < self.beat / 2:
                behind[table_id] = seen
            else:
                self.counts["timers_unheard"] += 1
                assert table is not None
                if own:
                    assert mine is not None
                    log.warning("table %s: the deadline of its turn timer set here is not in the database "
                                "(lost with it): writing it again", table_id)
                    self._write_turn(table_id, marker, mine[1])
                else:
                    assert stored is not None
                    log.warning("table %s: a turn timer's deadline saved by another process was never "
                                "announced: taking it", table_id)
                    self.turns[table_id] = stored
                    self.server.changed(table)  # its clients see the time left
        self.turns_behind = {**{t: v for t, v in self.turns_behind.items() if t not in there
                                and t in tables}, **behind}

    def _unheard_takeovers(self, there: dict[str, dict[int, tuple[float, str]]]) -> None:
        """Seats a person connected here holds (their announcement heard back) that the database
        shows taken after them through another live process (``presence.since``, on the
        database's clock; the process's id breaks a tie), at two heartbeats in a row, at least half
        a beat apart, the same taking both times: a takeover whose notification (``r``, :meth:`heard`)
        was lost, so the connection here loses the seat as it would on hearing it (``replaced``).
        A takeover heard in time has the losing connection's row gone within milliseconds: never
        found twice. A row of an older process, which does not say when (NULL), is not compared."""
        now = time.monotonic()
        tables = self.server.lobby.tables
        behind: dict[str, tuple[dict[int, tuple[float, str]], float]] = {}
        for table_id, taken in there.items():
            table = tables.get(table_id)
            if table is None or not taken:
                continue
            later = {}
            for conn in self.server.watchers.get(table_id, ()):
                seat = conn.seat
                if seat in taken and conn.announced and taken[seat] > (conn.seated_at, self.process):
                    later[seat] = taken[seat]
            if not later:
                continue
            seen = self.takeovers_behind.get(table_id)
            if seen is None or seen[0] != later:
                behind[table_id] = (later, now)
            elif now - seen[1] < self.beat / 2:
                behind[table_id] = seen
            else:
                self.counts["takeovers_unheard"] += len(later)
                log.warning("table %s: seat(s) %s taken through another process unannounced: the connections "
                            "here lose them", table_id, sorted(later))
                for seat, (at, _) in sorted(later.items()):
                    self.server.replace_seat(table, seat, at)
        self.takeovers_behind = {**{t: v for t, v in self.takeovers_behind.items() if t not in there
                                    and t in tables}, **behind}

    def _to_check(self) -> list[str]:
        """The tables whose place in the database the next heartbeat reads: those found behind at
        the last one (moves or people), then those checked longest ago, :attr:`check_batch` in
        all (every table at each beat up to that many in memory; beyond, each in turn)."""
        tables = self.server.lobby.tables
        for gone in [t for t in self.checked if t not in tables]:
            del self.checked[gone]
        behind = {**self.behind, **self.presence_behind, **self.turns_behind, **self.takeovers_behind}
        first = [t for t in behind if t in tables]
        rest = [t for t in tables if t not in behind]
        if len(first) + len(rest) > self.check_batch:
            rest.sort(key=lambda t: self.checked.get(t, 0.0))
        chosen = first + rest[:max(0, self.check_batch - len(first))]
        now = time.monotonic()
        for t in chosen:
            self.checked[t] = now
        return chosen

    def _clock_read(self, now: float, schema: int | None, before: float, after: float) -> None:
        """A reading of the database's clock (``now``, asked at ``before`` and answered at
        ``after`` on this process's clock; made with each heartbeat, in its transaction) and of its
        schema version: the clock's offset from this process's; a newer schema (a newer server
        upgraded the database) stops this process taking new tables."""
        if after - before < 0.5:  # an answer that took long says little about the time
            self.offset = self.clock_readings.add(now, before, after)
            self.clock_read = True
        if schema is not None and schema > SCHEMA_VERSION and self.newer != schema:
            log.error("the database %s has schema version %s, newer than this server's %s: this "
                      "process takes no new tables; upgrade it", self.store.path, schema, SCHEMA_VERSION)
        self.newer = schema if schema is not None and schema > SCHEMA_VERSION else None

    def now(self) -> float:
        """The time on the database's clock (seconds since the epoch), as last measured."""
        return time.time() + self.offset

    def check_create(self) -> None:
        """ProtocolError (``server_outdated``) if the database was upgraded by a newer server."""
        if self.newer is not None:
            raise P.ProtocolError(f"this server is older than its database (schema {self.newer}, it "
                                  f"reads up to {SCHEMA_VERSION}) and opens no new tables: try again in a "
                                  "moment", "server_outdated")

    # --- presence -------------------------------------------------------------------------------

    def present_elsewhere(self, table_id: str) -> set[int]:
        return self.elsewhere.get(table_id, set())

    def seated(self, table_id: str, seat: int, here: bool, conn: Any = None) -> float:
        """A person of this process sat down at (or left) a seat: tell the others now (written in
        a thread of its own, in order, off the event loop), with the time on the database's clock
        when it happened, which this returns. ``conn``, the connection that sat down, is sent
        nothing until the announcement is in the database: the person cannot reach another process
        (a page moving its socket to the table's process) before every process can hear it, so the
        announcements of a seat come in the order its connections took it (:meth:`heard`)."""
        at = self.now()
        loop = asyncio.get_running_loop() if conn is not None else None
        if conn is not None:
            conn.announcing, conn.announced = f"{seat}@{at:.6f}", False
            conn.hold()

        def write() -> None:
            try:
                self.store.set_presence(table_id, seat, here, at if here else None)
            except (StoreUnavailable, StoreConflict):
                self.restate = True  # the next heartbeat says it
                if loop is not None:  # never heard back: the next announcement heard takes the seat
                    loop.call_soon_threadsafe(setattr, conn, "announced", True)
            finally:
                if loop is not None:
                    loop.call_soon_threadsafe(conn.release)
        self._write(write)
        return at

    def _write(self, write: Callable[[], None]) -> None:
        """Run a presence write in the presence thread, in order; kept back while a LISTEN on the
        channel of a table created here is on its way (its announcement must be heard back here)."""
        if self.gated or (self.gate is not None and not self.gate.done()):
            self.gated.append(write)
            return
        self.writer.submit(write)

    def _open_gate(self, _: Any = None) -> None:
        if self.gate is not None and not self.gate.done():
            return  # a later LISTEN is still on its way
        self.gate = None
        while self.gated:
            self.writer.submit(self.gated.popleft())

    def open_tables(self, limit: int, known: set[str]) -> list[dict[str, Any]]:
        """Public tables not started, with a free seat and a person connected to another process."""
        try:
            rows = self.store.open_tables(limit + len(known), self.lease)
        except StoreUnavailable:
            return []
        found = []
        for table_id, options, taken, host in rows:
            if table_id in known or taken >= options.get("seats", 0):
                continue
            found.append({"id": table_id, "preset": options.get("preset"), "seats": options.get("seats"),
                          "taken": taken, "host": host, "bots": options.get("bots"),
                          "timer": options.get("timer")})
        return found[:limit]

    # --- turn timers ----------------------------------------------------------------------------

    def turn_ends(self, table_id: str, marker: tuple[int, int], longest: float | None = None) -> float | None:
        """When (on this process's monotonic clock) the turn timer of this position runs out, as
        the process that set it saved it, at most ``longest`` seconds from now (a turn's length:
        the two processes' readings of the database's clock differ by a few milliseconds); None
        if none was saved for this position."""
        saved = self.turns.get(table_id)
        if saved is None or saved[0] != marker:
            return None
        left = saved[1] - self.now()
        return time.monotonic() + (left if longest is None else min(left, longest))

    def share_turn(self, table_id: str, marker: tuple[int, int], ends: float) -> None:
        """Save a turn timer this process set (``ends`` on its monotonic clock), on the database's
        clock."""
        epoch = self.now() + (ends - time.monotonic())
        self.turns[table_id] = (marker, epoch)
        self._write_turn(table_id, marker, epoch)

    def _write_turn(self, table_id: str, marker: tuple[int, int], epoch: float) -> None:
        """Write a turn timer in the presence thread (in order, off the event loop); one that
        fails is written again at the next heartbeat while its turn lasts (:meth:`_turns_again`)."""
        def write() -> None:
            try:
                self.store.set_turn(table_id, marker[0], marker[1], epoch)
            except (StoreUnavailable, StoreConflict):
                self.unshared[table_id] = (marker, epoch)
        self._write(write)

    def _turns_again(self) -> None:
        """Write again the turn timers whose write failed, those whose turn still lasts."""
        for table_id in list(self.unshared):
            saved = self.unshared.pop(table_id, None)
            if saved is not None and self.turns.get(table_id) == saved:
                self._write_turn(table_id, *saved)

    # --- moves saved off the event loop ---------------------------------------------------------

    def receive(self, conn: _Client, msg: P.ClientMessage) -> Awaitable[None] | None:
        """Handle a message off the event loop if it must: a move (saved in a worker thread, while
        the connection's next messages, a ping, are answered), or any message about a table whose
        move is being saved (it waits for that); else None (the app handles it at once)."""
        wanted = getattr(msg, "table", None) if isinstance(msg, (P.Join, P.Resume, P.Recover, P.Watch)) \
            else None
        table = conn.table if wanted is None else self.server.lobby.tables.get(wanted)
        if isinstance(msg, P.Act) and conn.table is not None and conn.seat is not None:
            task = asyncio.ensure_future(self._answering(conn, self._player_act(conn, conn.table, conn.seat,
                                                                                msg)))
            self.moving.add(task)
            task.add_done_callback(self.moving.discard)
            done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            done.set_result(None)
            return done
        if table is not None and table.saving:
            return self._answering(conn, self._after_save(conn, msg, table))
        return None

    def dispatch(self, conn: _Client, msg: P.ClientMessage) -> Coroutine[Any, Any, None]:
        """Handle a message (a join, a create, a start, the public list...) with every database
        call it makes awaited off the event loop (:meth:`bridged`); what went wrong is told to
        this client only."""
        wanted = getattr(msg, "table", None) if isinstance(msg, (P.Join, P.Resume, P.Recover, P.Watch)) \
            else None
        table = conn.table if wanted is None else self.server.lobby.tables.get(wanted)
        if isinstance(msg, (P.Create, P.ListTables)):
            table = None
        return self._answering(conn, self._dispatch(conn, msg, table))

    async def _dispatch(self, conn: _Client, msg: P.ClientMessage, table: Table | None) -> None:
        # one change at a time at a table: a message that came while another was being saved
        # there (one loaded for, say) waits for it, as :meth:`receive` makes the others wait
        while table is not None and table.saving and table.id in self.saves:
            await asyncio.shield(self.saves[table.id])
        await self.bridged(functools.partial(self.server.dispatch, conn, msg), table)

    def saved(self, table: Table) -> None:
        self._held(table)

    def _held(self, table: Table) -> None:
        """Apply the moves notified while this process saved at ``table``, in the order they came."""
        for data in self.held_moves.pop(table.id, []):
            if not self.apply_move(table, data):
                self.dirty.add(table.id)
                self.wake.set()
                break

    async def _after_save(self, conn: _Client, msg: P.ClientMessage, table: Table) -> None:
        while table.saving and table.id in self.saves:
            await asyncio.shield(self.saves[table.id])
        if table.stale:
            await self.server.load(table.id)
        later = self.receive(conn, msg)
        await (self.dispatch(conn, msg) if later is None else later)

    async def _player_act(self, conn: _Client, table: Table, seat: int, msg: P.Act) -> None:
        """A person's move: saved off the loop; a move refused because this copy is behind (the
        notification of the move before it may be on its way) or lost a race with another process
        is tried again once the copy is up to date; one sent again is answered from the table."""
        for attempt in (1, 2):
            saving = self.saves.get(table.id)
            if saving is not None:
                await asyncio.shield(saving)
            if table.stale:
                await self.server.load(table.id)
            try:
                await self.act(table, seat, msg.move, HUMAN, msg.act_id)
                break
            except AlreadyApplied:  # known from the act ids the table holds: nothing read or replayed
                self.server.broadcast(table, only=conn)
                return
            except P.ProtocolError as exc:
                if attempt == 2 or exc.code not in ("out_of_turn", "not_now"):
                    raise
                await self.refresh_off_loop(table)
            except StoreConflict:
                if attempt == 2:
                    raise
                await self.server.load(table.id)  # the copy is stale: rebuilt off the loop
        self.server.changed(table)
        movetrace.stamp(msg.act_id, "b")

    async def act(self, table: Table, seat: int, action: str, actor: str, act_id: str | None = None) -> None:
        """Play a move on the table and save it in a worker thread, the event loop free meanwhile;
        nobody is told of it until it is saved. StoreConflict or StoreUnavailable (the copy left
        stale) if the database refused it or did not answer in time."""
        if actor == HUMAN:
            self.server.human_check(table, seat, act_id)
        events = table.begin_act(seat, action, act_id)
        done = self.saves[table.id] = asyncio.get_running_loop().create_future()
        saved = False
        try:
            sent = time.perf_counter()
            await self.store.save_move(table.id, table.game_no, table.moves, seat, action, actor, events,
                                       act_id)
            saved = True
            movetrace.stamp(act_id, "s", sent)
            movetrace.stamp(act_id, "c")
            self.counts["moves_saved"] += 1
            self.counts["save_wait_us"] += round(1e6 * (time.perf_counter() - sent))
        finally:
            table.end_act(act_id, saved=saved)
            if self.saves.get(table.id) is done:
                del self.saves[table.id]
            done.set_result(None)
            self._held(table)

    def automatic(self, table: Table, seat: int, action: str, actor: str) -> None:
        """A bot's move, or one played for a person (timer, absent), saved off the loop."""
        task = asyncio.ensure_future(self._automatic(table, seat, action, actor))
        self.tasks.append(task)
        task.add_done_callback(self.tasks.remove)

    async def _automatic(self, table: Table, seat: int, action: str, actor: str) -> None:
        try:
            await self.act(table, seat, action, actor)
        except (StoreConflict, StoreUnavailable) as exc:  # another process moved first, or no database
            if isinstance(exc, StoreUnavailable):
                log.warning("automatic move at table %s waits for the database", table.id)
            self.server.rebuild_soon(table)
            return
        except P.ProtocolError:  # the table moved on meanwhile: it is scheduled again
            self.server.reschedule(table)
            return
        except Exception:  # an automatic move must never take the server down
            log.exception("automatic move failed at table %s", table.id)
            return
        self.server.changed(table)
        self.server.release(table)

    # --- fan-out --------------------------------------------------------------------------------

    def refresh(self, table: Table) -> bool:
        """Read what this copy of the table is missing (moves, seats, a new game; who is connected
        elsewhere), apply it, tell this process's clients; whether anything changed. The database
        being away is left for later (the table is marked to be read again). A stale copy is
        rebuilt off the event loop (:meth:`~.app.Server.rebuild_soon`) instead."""
        if table.stale:
            self.server.rebuild_soon(table)
            return False
        if table.saving:  # read once the move being saved is in
            self.dirty.add(table.id)
            self.wake.set()
            return False
        self.counts["tables_read"] += 1
        try:
            read = self.store.catch_up(table.id, table.game_no, table.moves, self.lease)
        except StoreUnavailable:
            self.dirty.add(table.id)
            return False
        return self._apply(table, read)

    def refresh_soon(self, table: Table) -> None:
        """:meth:`refresh_off_loop` soon, by the task that applies what notifications announce."""
        self.dirty.add(table.id)
        self.wake.set()

    async def refresh_off_loop(self, table: Table) -> None:
        """:meth:`refresh`, the database read in a worker thread (the event loop goes on meanwhile);
        if the copy moved on during the read, it is read again on the loop; a stale copy is
        rebuilt in the loader thread."""
        saving = self.saves.get(table.id)
        if saving is not None:
            await asyncio.shield(saving)
        if table.stale:
            self.counts["tables_read"] += 1
            await self.server.load(table.id)
            return
        self.counts["tables_read"] += 1
        marks = _marks(table)
        try:
            read = await asyncio.to_thread(self.store.catch_up, table.id, table.game_no, table.moves,
                                           self.lease)
        except StoreUnavailable:
            self.dirty.add(table.id)
            return
        if table.saving:  # a change under way here (a join, a move): read again once it is in
            self.dirty.add(table.id)
            self.wake.set()
            return
        if _marks(table) != marks or self.server.lobby.tables.get(table.id) is not table:
            if self.server.lobby.tables.get(table.id) is table:
                await self.bridged(functools.partial(self.refresh, table), table)
            return
        self._apply(table, read)

    def _apply(self, table: Table,
               read: tuple[StoredTable | None, set[int], tuple[int, int, float] | None]) -> bool:
        saved, elsewhere, turn = read
        if saved is None:  # deleted (expired) meanwhile
            return False
        changed = table.catch_up(saved)
        if table.stale:  # too far behind to replay here: rebuilt off the loop, then its clients told
            self.server.rebuild_soon(table)
        if turn is not None and self.turns.get(table.id) != ((turn[0], turn[1]), turn[2]):
            self.turns[table.id] = ((turn[0], turn[1]), turn[2])
            changed = True
        if elsewhere != self.elsewhere.get(table.id, set()):
            self.elsewhere[table.id] = elsewhere
            changed = True
        if changed:
            self.server.changed(table)
        else:
            self.server.reschedule(table)
        return changed

    def heard(self, payload: str) -> None:
        """A notification: ``PROCESS|TABLE`` (read the table again), ``PROCESS|TABLE|p`` (who is
        connected changed), ``PROCESS|TABLE|m|MOVE`` (a saved move, applied here at once if it
        is the next one this copy expects) or ``PROCESS|TABLE|g|GAME`` (a new game, dealt here
        at once if it is the next one)."""
        sender, _, rest = payload.partition("|")
        table_id, _, rest = rest.partition("|")
        kind, _, data = rest.partition("|")
        if sender == self.process:
            if kind == "r":  # this process's own announcement, heard back in its place in the order
                for conn in self.server.watchers.get(table_id, ()):
                    if conn.announcing == data:
                        conn.announced = True
            return
        self.counts["notified"] += 1
        table = self.server.lobby.tables.get(table_id)
        if table is None:
            if table_id in self.server.loading:
                self.dirty.add(table_id)
                self.wake.set()
            return
        if kind == "r":  # a person took a seat on another process: an older connection here loses it
            seat, _, at = data.partition("@")  # ``SEAT@WHEN`` (``SEAT`` from an older process)
            with contextlib.suppress(ValueError):
                self.server.replace_seat(table, int(seat), float(at) if at else None)
            kind = "p"
        if table_id not in self.dirty:
            if kind == "m" and table.saving:  # the move this process saves there comes first
                self.held_moves.setdefault(table_id, []).append(data)
                return
            if kind == "m" and self.apply_move(table, data):
                return
            if kind == "g" and self.apply_game(table, data):
                return
            if kind == "p":
                self.seats_dirty.add(table_id)
                self.wake.set()
                return
            if kind == "t":
                with contextlib.suppress(ValueError):
                    game_no, events, ends = data.split(":")
                    self.turns[table_id] = ((int(game_no), int(events)), float(ends))
                    self.server.broadcast(table)  # its clients see the time left
                return
        self.dirty.add(table_id)
        self.wake.set()

    def apply_move(self, table: Table, data: str) -> bool:
        """Apply a move another process saved (from its notification); False if it is not the
        next move of this copy (then the table is read from the database)."""
        try:
            move = json.loads(data)
            if (table.game is not None and not table.stale
                    and (move["g"], move["s"]) < (table.game_no, table.moves)):
                self.counts["moves_known"] += 1
                return True  # this copy has it already (read with an earlier one): nothing to do
            if (table.stale or table.saving or table.game is None or move["g"] != table.game_no
                    or move["s"] != table.moves):
                return False  # a real gap (or a move racing this process's own): read the table
            table.apply_saved(StoredAction(move["seat"], move["a"], move["w"], move["e"], move.get("i")))
        except (ValueError, KeyError, TypeError):
            return False
        self.counts["moves_applied"] += 1
        self.server.changed(table)
        return True

    def apply_game(self, table: Table, data: str) -> bool:
        """Start the game another process started (from its notification: its seed, players and
        deal); False if it is not the next game of this copy, or the copy is busy (then the
        table is read from the database)."""
        try:
            game = json.loads(data)
            if table.stale or table.saving or game["g"] != table.game_no + 1:
                return False
            table.start_saved(StoredGame(game["g"], game["seed"], game["carry"], game["names"], game["kinds"],
                                         game["e"]))
        except (ValueError, KeyError, TypeError):
            return False
        self.counts["games_applied"] += 1
        self.server.changed(table)
        return True

    async def _catch_up(self) -> None:
        """Apply what the notifications announced, a batch at a time."""
        readers = asyncio.Semaphore(3)  # reads at once (the pool has 8 connections, for moves too)
        while True:
            await self.wake.wait()
            self.wake.clear()
            seats, self.seats_dirty = self.seats_dirty - self.dirty, set()
            asked = sorted(t for t in seats if t in self.server.lobby.tables)
            if asked:  # who is connected elsewhere, at every table that changed: one statement
                try:
                    found = await asyncio.to_thread(self.store.presence_elsewhere, asked, self.lease)
                except StoreUnavailable:
                    self.dirty.update(asked)
                    found = {}
                for table_id, elsewhere in found.items():
                    table = self.server.lobby.tables.get(table_id)
                    if table is not None and elsewhere != self.elsewhere.get(table_id, set()):
                        self.elsewhere[table_id] = elsewhere
                        self.server.changed(table)
            batch, self.dirty = self.dirty, set()

            async def one(table_id: str) -> None:
                if table_id in self.server.loading:  # read after its load: the load may predate the write
                    with contextlib.suppress(Exception):
                        await self.server.loading[table_id]
                table = self.server.lobby.tables.get(table_id)
                if table is None:
                    return
                async with readers:
                    try:
                        await self.refresh_off_loop(table)
                    except Exception:
                        log.exception("could not bring table %s up to date", table_id)

            await asyncio.gather(*(one(t) for t in batch))

    async def _listen(self) -> None:
        """LISTEN for the other processes' writes, reconnecting when the connection drops."""
        import psycopg

        first = True
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(self.store.url, autocommit=True,
                                                             connect_timeout=2)
            except (psycopg.Error, OSError):
                await asyncio.sleep(0.25)
                continue
            try:
                async with conn:
                    # a notification psycopg reads while it runs a command is handed over here
                    conn.add_notify_handler(lambda note: self.heard(note.payload))
                    tables = self._in_memory()
                    if tables:
                        await conn.execute(listen_text(sorted(tables)))
                    self.channels, self.listener = tables, conn.pgconn
                    self._follow_all(sorted(self._in_memory() - tables))  # loaded meanwhile: read once more
                    if first and tables:  # loaded before the first LISTEN: read once more
                        self.dirty.update(tables)
                        self.wake.set()
                    if not first:  # the pool's connections broke with the old server: renew them first
                        await asyncio.to_thread(self.store.renew)
                    first = False
                    await self._became(up=True)
                    await self._hear(conn)
            except (psycopg.Error, OSError):
                pass
            except asyncio.CancelledError:  # stopping: not the database's fault
                self.up = False
                raise
            finally:
                self._unheard()
                if self.up:
                    await self._became(up=False)
            await asyncio.sleep(0.25)

    def _in_memory(self) -> set[str]:
        """The tables this process has in memory or is loading: those whose channels it LISTENs on."""
        return set(self.server.lobby.tables) | set(self.server.loading)

    async def follow(self, table_id: str) -> None:
        """LISTEN on a table's channel before the table is read (its load), so that every write
        committed after the read is heard; at once if it is listened on already, or while the
        listener is down (when it connects again it LISTENs on every table in memory or loading,
        and they are all read again)."""
        if table_id in self.channels or self.listener is None:
            return
        self.channels.add(table_id)
        with contextlib.suppress(Exception):  # the connection dropped: see above
            await asyncio.shield(self._command(listen_text([table_id])))

    def follow_soon(self, table_id: str) -> None:
        """LISTEN on the channel of a table already in memory (created here), then read it once:
        a write made before the LISTEN took effect is not missed."""
        if table_id not in self.channels and self.listener is not None:
            self._follow_all([table_id])

    def _follow_all(self, table_ids: list[str]) -> None:
        """:meth:`follow_soon` for tables not listened on yet, :attr:`listen_batch` channels to a
        LISTEN text (many tables found at once cost a few commands, not one each)."""
        for start in range(0, len(table_ids), self.listen_batch):
            batch = table_ids[start:start + self.listen_batch]
            self.channels.update(batch)

            def listening(_: Any, batch: list[str] = batch) -> None:
                self.dirty.update(batch)
                self.wake.set()
            done = self.gate = self._command(listen_text(batch))
            done.add_done_callback(listening)
            done.add_done_callback(self._open_gate)

    def tidy_channels(self) -> None:
        """UNLISTEN on the channels of the tables this process let go (and LISTEN on any table in
        memory not listened on yet), :attr:`listen_batch` channels to a text; at each heartbeat."""
        if self.listener is None:
            return
        tables = self._in_memory()
        gone = sorted(self.channels - tables)
        # at once: a table loaded again before the UNLISTEN is in LISTENs after it
        self.channels.difference_update(gone)
        for start in range(0, len(gone), self.listen_batch):
            self._command(listen_text(gone[start:start + self.listen_batch], stop=True))
        if len(tables) > len(self.channels):
            self._follow_all(sorted(tables - self.channels))

    def _command(self, text: str) -> asyncio.Future[None]:
        """Send a LISTEN/UNLISTEN text on the listening connection, after those sent before it;
        done when its answer came (failed if the connection dropped)."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        done.add_done_callback(lambda f: f.cancelled() or f.exception())
        self.commands.append((text.encode(), done))
        if self.sent is None:
            self._send_next()
        return done

    def _send_next(self) -> None:
        while self.sent is None and self.commands and self.listener is not None:
            text, done = self.commands.popleft()
            try:
                self.listener.send_query(text)
                self._flush()
            except Exception as exc:
                if not done.done():
                    done.set_exception(exc)
                continue
            self.sent = done

    def _flush(self) -> None:
        """Send what libpq holds of the commands (the connection does not block: the rest when
        the socket can take it)."""
        pgconn = self.listener
        if pgconn is None or pgconn.flush() == 0:
            return
        loop = asyncio.get_running_loop()
        fd = self.flushing = pgconn.socket

        def writable() -> None:
            try:
                left = pgconn.flush()
            except Exception:
                left = 0  # the reader finds the connection broken
            if left == 0:
                loop.remove_writer(fd)
                self.flushing = None
        loop.add_writer(fd, writable)

    def _answers(self, pgconn: Any) -> None:
        """Take the answers of the commands sent that came (in the reader, before notifications)."""
        failed: Exception | None = None
        while self.sent is not None and not pgconn.is_busy():
            result = pgconn.get_result()
            if result is None:
                done, self.sent = self.sent, None
                if not done.done():
                    if failed is None:
                        done.set_result(None)
                    else:
                        done.set_exception(failed)
                failed = None
                self._send_next()
            elif result.status == self.store._fatal:
                failed = RuntimeError(result.error_message.decode(errors="replace"))

    def _unheard(self) -> None:
        """The listening connection is gone: no channel is listened on, the commands fail."""
        self.listener, self.channels = None, set()
        if self.flushing is not None:
            asyncio.get_running_loop().remove_writer(self.flushing)
            self.flushing = None
        sent, self.sent = self.sent, None
        waiting = [done for _, done in self.commands]
        self.commands.clear()
        for done in [sent, *waiting]:
            if done is not None and not done.done():
                done.set_exception(ConnectionError("the listening connection dropped"))

    async def _hear(self, conn: Any) -> None:
        """Hand each notification that comes on the listening connection to :meth:`heard`, in the
        order sent, until the connection fails: whenever its socket has data, everything that
        came is read at once (libpq's own calls, no task or future per notification)."""
        loop = asyncio.get_running_loop()
        pgconn, encoding = conn.pgconn, conn.info.encoding
        fd = pgconn.socket
        ended: asyncio.Future[None] = loop.create_future()

        def readable() -> None:
            try:
                pgconn.consume_input()
                self._answers(pgconn)
            except Exception as exc:  # the connection broke: listen again afresh
                loop.remove_reader(fd)
                if not ended.done():
                    ended.set_exception(exc)
                return
            while (note := pgconn.notifies()) is not None:
                try:
                    self.heard(note.extra.decode(encoding))
                except Exception:  # one bad notification must not stop the others
                    log.exception("could not apply a notification")

        loop.add_reader(fd, readable)
        try:
            readable()  # what came with the LISTEN's answer
            await ended
        finally:
            loop.remove_reader(fd)

    async def _watch(self) -> None:
        """Probe the database on a connection of its own: one that stops answering (stopped,
        overloaded, its network cut) is noticed within :attr:`probe_timeout` seconds. While it
        answers, the loop looks again only when the probe's silence could first reach the limit
        (about every 2 s, not at each probe); once it does not, at each probe."""
        self.store.start_probing(self.probe_every, self.probe_timeout)
        limit = 2 * self.probe_timeout
        while True:
            silent = self.store.silent()
            answering = silent < limit
            if answering != self.answering:
                await self._became(answering=answering)
            await asyncio.sleep(max(self.probe_every, limit - silent) if answering else self.probe_every)

    async def _became(self, *, up: bool | None = None, answering: bool | None = None) -> None:
        """The listener connected or dropped, or the probe was answered or not: tell the clients
        when the database as a whole went away or came back."""
        before = self.available
        if up is not None:
            self.up = up
        if answering is not None:
            self.answering = answering
        if before and not self.available:
            self._lost()
        elif self.available and not before:
            if self.started:
                await self._back()
            else:  # the first connection at start: nothing was lost
                self.started = True
                self.store.mark_up()

    def _tell(self, message: dict[str, Any], tables: Callable[[], list[str]] | None = None) -> None:
        text = P.encode(message)
        for conn in list(self.server.open):
            conn.send(text)

    def _lost(self) -> None:
        log.warning("the database %s is unreachable: play waits for it", self.store.path)
        self.store.mark_down(365 * 86400.0)  # until it is back: moves are refused at once
        self.held.clear()
        for table in list(self.server.lobby.tables.values()):
            self.server.reschedule(table)  # holds nothing now: bots and timers stop
        self._tell(P.error("database_unavailable", "the game's database is unreachable: moves cannot be "
                           "saved now; play resumes when it is back"))

    async def _back(self) -> None:
        log.warning("the database %s is back", self.store.path)
        self.restate = True
        self.store.mark_up()
        self._tell({"type": "notice", "v": P.VERSION, "code": "database_back",
                    "message": "the game's database is back: play on"})
        with contextlib.suppress(Exception):
            await self.heartbeat()  # leases and presence: bots and timers go on where they were
        self.dirty.update(self._in_memory())  # every table read again, off the loop (loading: after it)
        self.wake.set()
