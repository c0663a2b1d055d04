"""daneshmand2020: "Theoretical Understanding of Batch-normalization: A Markov Chain
Perspective" (arXiv:2003.01652v1, the version whose numbering the claims' locations follow)."""

from theorems.engine.papers import Paper, register_paper

register_paper(Paper(
    id="daneshmand2020",
    title="Theoretical Understanding of Batch-normalization: A Markov Chain Perspective",
    authors=("Hadi Daneshmand", "Jonas Kohler", "Francis Bach", "Thomas Hofmann", "Aurelien Lucchi"),
    venue="arXiv preprint",
    year=2020,
    link="https://arxiv.org/abs/2003.01652v1",
    note="version 1; later versions (v3, NeurIPS 2020) are retitled \"Batch Normalization Provably Avoids Rank "
         "Collapse for Randomly Initialised Deep Networks\" and revised",
))
