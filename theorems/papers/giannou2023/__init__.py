"""giannou2023: "The Expressive Power of Tuning Only the Normalization Layers"
(shared/seeds/000_ee8c9d7a0007ea49.txt; 001_c69cb66ee89a8f72.txt is a second extraction)."""

SOURCE = "shared/seeds/000_ee8c9d7a0007ea49.txt"
