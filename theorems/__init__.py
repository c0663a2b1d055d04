"""Executable, checkable claims from four papers on normalization layers.

Every claim of ``CLAIMS.md`` has a stable id; implemented claims carry checks whose
outcomes combine into one verdict: certified, supported, refuted or inconclusive.
"""

__version__ = "0.1.0"
