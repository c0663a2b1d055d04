"""The suite's closed vocabularies, as string enums: what a verdict, a check kind, a device
and an erratum's severity can be. Each member is its own string (``Verdict.CERTIFIED ==
"certified"``), so JSON, manifests and command lines read and write the plain words; code
iterates the enum instead of spelling the words again.
"""

from __future__ import annotations

from enum import StrEnum


class Verdict(StrEnum):
    """A claim's or a check's verdict, strongest evidence first."""

    CERTIFIED = "certified"
    SUPPORTED = "supported"
    REFUTED = "refuted"
    INCONCLUSIVE = "inconclusive"


class CheckKind(StrEnum):
    """How a check decides: a sympy identity, a randomized search for a counterexample, a
    statistical test at a stated false-alarm rate, or an exact certificate (Schwartz–Zippel in
    modular or rational arithmetic). A statistical check never certifies, and its evidence states
    ``detectable_effect``: the smallest effect it detects at that rate, in the claim's units."""

    SYMBOLIC = "symbolic"
    RANDOMIZED = "randomized"
    STATISTICAL = "statistical"
    CERTIFICATE = "certificate"


class Device(StrEnum):
    """Where torch-based checks run; ``AUTO`` is a request, resolved to CPU or CUDA before a
    run starts (``settings.resolve_device``)."""

    AUTO = "auto"
    CPU = "cpu"
    CUDA = "cuda"


class Severity(StrEnum):
    """How much a refutation matters (see ``registry.Erratum``)."""

    AS_PRINTED = "as-printed"
    SUBSTANTIVE = "substantive"


def choices(vocabulary: type[StrEnum]) -> str:
    """'a, b, c': the words of a vocabulary, for error messages."""
    return ", ".join(member.value for member in vocabulary)
