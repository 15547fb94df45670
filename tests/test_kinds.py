"""Each game's kind owns its config type: the interfaces build it, store it and pass it back
without asking which game it is (chasetheace.kinds.GameKind)."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from chasetheace.acechasing.game import AceChasingGame
from chasetheace.acechasing.kind import KIND as ACE_CHASING
from chasetheace.acechasing.kind import AceChasingConfig
from chasetheace.kinds import GameKind
from chasetheace.registry import CHASE_THE_ACE, GAMES
from chasetheace.rules import Rules
from chasetheace.web.protocol import Create, ProtocolError
from chasetheace.web.store import Store
from chasetheace.web.tables import Lobby, Table, TableOptions


@pytest.mark.parametrize("kind", GAMES.values(), ids=list(GAMES))
def test_every_kind_plays_a_game_from_its_own_config(kind: GameKind[Any, Any]) -> None:
    config = kind.config_from("standard", {}, None)
    assert kind.config_from_dict(config.to_dict()) == config == kind.config_from_args("standard", [])
    players = max(kind.min_players, 4)
    names = [f"P{i}" for i in range(players)]
    game = kind.new_game(config, names, 7, kind.carry.first)
    bots = [kind.make_bot(kind.stand_in_bot, config, players) for _ in names]
    rng = random.Random(3)
    while not game.over:
        seat = game.to_act
        assert seat is not None
        game.act(bots[seat].choose(game.observation(seat), game.legal_actions(), rng), seat)
    record = kind.seeded_record(names, config, kind.carry.first, [e.to_dict() for e in game.events])
    assert kind.from_record(record).events == game.events
    assert kind.carry.from_int(kind.carry.to_int(kind.carry.of(game))) == kind.carry.of(game)


def test_ace_chasing_has_a_config_of_its_own_and_refuses_house_rules() -> None:
    assert type(ACE_CHASING.config_from("standard", {}, 99)) is AceChasingConfig
    assert type(CHASE_THE_ACE.config_from("cuckoo", {"lives": 4}, 99)) is Rules
    assert ACE_CHASING.rules_of(AceChasingConfig()) is None
    assert ACE_CHASING.carry.first is None and ACE_CHASING.carry.to_int(None) == 0
    for preset, options in (("cuckoo", {}), ("standard", {"lives": 2})):
        with pytest.raises(ValueError, match="no presets or house rules"):
            ACE_CHASING.config_from(preset, options, 99)
    with pytest.raises(ValueError, match="no rule options"):
        ACE_CHASING.config_from_args("standard", ["lives=2"])
    with pytest.raises(ValueError, match="no rule options"):
        AceChasingConfig.from_dict({"lives": 2})
    with pytest.raises(ValueError, match="at most 99 at a web table"):
        CHASE_THE_ACE.config_from("standard", {"lives": 100}, 99)


def test_a_web_table_keeps_its_games_config_and_an_old_ace_chasing_table_still_loads() -> None:
    store = Store(":memory:")
    lobby = Lobby(store)
    table, _, _ = lobby.create(Create("Ann", seats=4, bots="odds", game="ace-chasing"))
    assert table.options.config == AceChasingConfig() and table.options.rules is None
    assert table.options.to_dict()["rules"] == {}
    table.start(0)
    again = Table.restore(store.load_table(table.id), store)  # type: ignore[arg-type]
    assert again.options == table.options and again.game is not None
    assert again.game.events == table.game.events  # type: ignore[union-attr]
    # a table stored before Ace Chasing had a config: the standard Chase the Ace rules
    old = {**table.options.to_dict(), "rules": Rules().to_dict()}
    assert TableOptions.from_dict(old).config == AceChasingConfig()
    with pytest.raises(ProtocolError, match="no presets or house rules"):
        lobby.create(Create("Bob", seats=4, bots="odds", game="ace-chasing", options={"lives": 2}))
    chase, _, _ = lobby.create(Create("Cat", preset="cuckoo", seats=3, bots="threshold:8"))
    assert chase.options.config == chase.options.rules == Rules.preset("cuckoo")


def test_a_database_an_older_server_wrote_opens_with_its_seat_kinds_and_config(tmp_path: Path) -> None:
    path = str(tmp_path / "old.sqlite3")
    Store(path).close()  # the layout, as an older server left it (the column is still ``kinds``)
    names = ["Ann", "Bot 1", "Bot 2", "Bot 3"]
    seat_kinds = ["human", "odds", "odds", "odds"]
    options: dict[str, Any] = {"preset": "standard", "rules": Rules().to_dict(), "seats": 4, "bots": "odds",
                               "timer": None, "on_timeout": "keep", "public": False, "game": "ace-chasing",
                               "hints": False}
    con = sqlite3.connect(path)
    con.execute("INSERT INTO tables (id, created, options) VALUES ('t1', 0, ?)", (json.dumps(options),))
    con.execute("INSERT INTO seats (table_id, seat, name, token_hash) VALUES ('t1', 0, 'Ann', 'hash')")
    deal = AceChasingGame(names, seed=5).events
    con.execute("INSERT INTO games (table_id, game_no, seed, carry, names, kinds, events) "
                "VALUES ('t1', 1, 5, 0, ?, ?, ?)",
                (json.dumps(names), json.dumps(seat_kinds), json.dumps([e.to_dict() for e in deal])))
    con.commit()
    con.close()
    store = Store(path)
    saved = store.load_table("t1")
    assert saved is not None and saved.games[0].seat_kinds == seat_kinds
    table = Table.restore(saved, store)
    assert table.seat_kinds == seat_kinds and table.options.config == AceChasingConfig()
    game = table.game
    assert game is not None
    while not game.over:
        seat = game.to_act
        assert seat is not None
        if seat == 0:
            table.act(seat, table.default_action(seat))
        else:
            table.act(seat, table.bot_action(seat), "bot")
    record = store.game_record("t1", 1, options["rules"], "ace-chasing")
    assert ACE_CHASING.from_record(record).events == game.events
