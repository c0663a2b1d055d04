"""Mathematics that more than one paper (or the engine) uses: exact arithmetic on
python-flint, statistics, Hypothesis strategies, Khatri–Rao products, Boolean determinants
and matchings, and the batch-normalized Markov chain. Nothing here registers a claim."""
