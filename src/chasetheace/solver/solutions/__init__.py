"""Solutions: which method solves a hand (:mod:`.choice`), ``solve()`` (:mod:`.solving`), the
:class:`~.solution.Solution` it returns, and the caches on disk of one-hand and whole-game
solutions (:mod:`.cache`, :mod:`.game_cache`)."""
