"""burkholz2024: "Batch Normalization is Sufficient for Universal Function Approximation in CNNs"
(shared/seeds/002_428916bde562607b.txt)."""

SOURCE = "shared/seeds/002_428916bde562607b.txt"
