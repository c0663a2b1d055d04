"""giannou2023: "The Expressive Power of Tuning Only the Normalization Layers" (COLT 2023; the
full paper, whose numbering the claims' locations follow, is arXiv:2302.07937)."""

from theorems.engine.papers import Paper, register_paper

register_paper(Paper(
    id="giannou2023",
    title="The Expressive Power of Tuning Only the Normalization Layers",
    authors=("Angeliki Giannou", "Shashank Rajput", "Dimitris Papailiopoulos"),
    venue="COLT",
    year=2023,
    link="https://arxiv.org/abs/2302.07937",
    note="COLT 2023 printed an extended abstract (PMLR 195:4130–4131); the full paper with its appendices is on arXiv",
))
