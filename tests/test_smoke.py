import chasetheace as cta


def test_a_game_plays_to_the_end() -> None:
    game = cta.Game(cta.Rules(), players=5, seed=1)
    cta.play_game(game, [cta.ThresholdBot(8)] * 5, seed=1)
    assert game.over and game.winner is not None
