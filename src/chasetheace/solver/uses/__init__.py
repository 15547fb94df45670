"""What the solutions are for: hints and reviews (:mod:`.advice`; Ace Chasing's review is judged by
the odds and lives beside its game, :mod:`chasetheace.acechasing.review`), the solved bot
(:mod:`.bot`), the rules of thumb and text report (:mod:`.explain`), and plots (:mod:`.plot`)."""
