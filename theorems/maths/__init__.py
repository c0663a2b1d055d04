"""Mathematics that more than one paper (or the engine) uses: exact arithmetic on
python-flint (with the only conversions between its rationals and Fraction), statistics,
Hypothesis strategies, Khatri–Rao products, Boolean determinants and matchings, random
features, the normalization-only constructions (the ``construction`` package: plans, methods
and their torch modules) and the batch-normalized Markov chain. Nothing here registers a claim."""
