"""A test hook: named points where a run waits, so that a test can kill it exactly there.

With ``THEOREMS_TEST_PAUSE_AT=<point>`` in the environment, the first time a run reaches
that point it says so on stderr (``theorems: test pause at <point>``) and sleeps a minute;
a signal ends the sleep as it would end any other work. Unset, as for every user, it does
nothing. The points: ``claim`` (the first claim has finished), ``staged`` (the new report
folder is complete beside the old one), ``swapped`` (the new folder is in place, the old one
not yet removed). ``tests/report/test_faults.py`` kills ``theorems report`` at each.
"""

from __future__ import annotations

import os
import sys
import time

VARIABLE = "THEOREMS_TEST_PAUSE_AT"
_passed: set[str] = set()


def pause_at(point: str) -> None:
    if os.environ.get(VARIABLE) != point or point in _passed:
        return
    _passed.add(point)
    print(f"theorems: test pause at {point}", file=sys.stderr, flush=True)
    time.sleep(60)
