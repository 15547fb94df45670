"""The model of one hand: its rules as the solver reads them (:mod:`.hand`), its situations in
words (:mod:`.words`), and the game trees built from it (:mod:`.tree`, :mod:`.outcome_tree`,
sharing the deal of :mod:`.dealing`), with their compiled loops (:mod:`.kernels`) and the
path-by-path reference (:mod:`.brute`). It imports nothing else of the solver."""
