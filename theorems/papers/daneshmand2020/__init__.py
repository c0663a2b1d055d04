"""daneshmand2020: "Theoretical Understanding of Batch-Normalization: A Markov Chain
Perspective" (shared/seeds/004_2bd97c699bfe9ad2.txt)."""

SOURCE = "shared/seeds/004_2bd97c699bfe9ad2.txt"
