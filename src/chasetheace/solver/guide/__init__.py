"""Build tools: the generators of the strategy guide ``docs/strategy.md`` (:mod:`.docs`) and of its
whole-game section (:mod:`.docs_game`). Nothing of the package imports them."""
