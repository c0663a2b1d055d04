"""Executable, checkable claims from four papers on normalization layers.

Every claim of ``papers/CLAIMS.md`` has a stable id; implemented claims carry checks whose
outcomes combine into one verdict: certified, supported, refuted or inconclusive.

    theorems.check("giannou2023.lemma6", profile="quick", seed=0)   # a ClaimResult
    theorems.claims()                                                # id -> Claim
    except theorems.TheoremsError: ...                               # any error of the suite's

Layout: ``engine/`` (knows no paper), ``maths/`` (shared mathematics), ``papers/<paper>/``
(the claims), and at the top the command line, reports, benchmarks and this Python face.
"""

__version__ = "0.1.0"

from .errors import TheoremsError

__all__ = ["TheoremsError", "__version__", "check", "claims"]  # check, claims: from __getattr__


def __getattr__(name: str):
    # The Python face is imported when first used: a command that only lists claims starts
    # without the engine it loads (sympy, numpy, Hypothesis).
    if name in ("check", "claims"):
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
