"""How a hand is solved and measured, on the model of :mod:`..model`: CFR on the exact tree
(:mod:`.cfr`, in parts: :mod:`.parts`), the exact LP of two-player constant-sum hands (:mod:`.lp`),
the sampled method (:mod:`.sampled`), the exact best response of any strategy (:mod:`.measure`),
and the whole game with lives (:mod:`.whole_game`, its limits in :mod:`.game_limits`)."""
