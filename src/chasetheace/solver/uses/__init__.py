"""What the solutions are for: hints and reviews (:mod:`.advice`, :mod:`.advice_ace` for the
ace-chasing game), the solved bot (:mod:`.bot`), the rules of thumb and text report
(:mod:`.explain`), and plots (:mod:`.plot`)."""
