"""Generated mutants in the report (``theorems report --mutants``): the score of the mutants
nobody chose (``engine.generated_mutants``) of a certified claim, as report.json, report.md,
the records and the HTML pages show it (``files.FiguresAndMutants`` runs them)."""

from __future__ import annotations

from typing import Any

from ..engine.generated_mutants import GeneratedReport


def mutants_document(generated: GeneratedReport) -> dict[str, Any]:
    """A claim's ``generated_mutants`` in report.json and its record: the score (None with
    nothing to kill), the counts, and each survivor with its reason and whether it changes the
    object within the certified scope ("yes", "no", "not shown") and why."""
    document = generated.to_json()
    return {
        **{key: document[key] for key in ("score", "generated", "killed", "killed_by_crash", "equivalent", "survived")},
        "survivors": [{"object": mutant.object, "kind": mutant.kind.value, "description": mutant.description,
                       "reason": mutant.reason, "within_scope": mutant.within_scope[0].value,
                       "why": mutant.within_scope[1]} for mutant in generated.survivors],
    }


def score_text(mutants: dict[str, Any]) -> str:
    """'0.83 (5/6)', or 'n/a' with nothing to kill."""
    counted = mutants["generated"] - mutants["equivalent"]
    killed = mutants["killed"] + mutants["killed_by_crash"]
    return "n/a" if mutants["score"] is None else f"{mutants['score']:.2f} ({killed}/{counted})"


def counts_text(mutants: dict[str, Any]) -> str:
    return (f"{mutants['generated']} generated, {mutants['killed'] + mutants['killed_by_crash']} killed "
            f"({mutants['killed_by_crash']} by crash), {mutants['equivalent']} equivalent, "
            f"{mutants['survived']} survived")


def within_scope(mutants: dict[str, Any]) -> list[dict[str, Any]]:
    """The survivors that change the object within the certified scope, or are not shown not to."""
    return [survivor for survivor in mutants["survivors"] if survivor["within_scope"] != "no"]
