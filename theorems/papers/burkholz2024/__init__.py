"""burkholz2024: "Batch Normalization is Sufficient for Universal Function Approximation in
CNNs" (ICLR 2024)."""

from theorems.engine.papers import Paper, register_paper

register_paper(Paper(
    id="burkholz2024",
    title="Batch Normalization is Sufficient for Universal Function Approximation in CNNs",
    authors=("Rebekka Burkholz",),
    venue="ICLR",
    year=2024,
    link="https://openreview.net/forum?id=wOSYMHfENq",
))
