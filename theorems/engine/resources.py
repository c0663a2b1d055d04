"""Memory: sizes capped by what the machine has, and what a claim used at its peak.

The ``large`` profile asks for instances (Khatri–Rao matrices of 4096² and beyond, chains at
d = 256) that a small machine cannot hold. A check asks ``capped_size`` for the size it
wants; it gets the largest size on its shrinking ladder whose memory fits in half of what
is available now, and the cap is recorded, so a record says which sizes were not run as
the profile asked. A cap changes the evidence, never silently: ``ClaimResult.resources``
lists every cap with the size wanted and the size used.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from ..lazy import torch
from .vocabulary import Device

# A check may plan to use this share of the memory available when it asks: the rest is
# for the interpreter, the other worker and the arrays a check does not count.
MEMORY_SHARE = 0.5

_caps: list[dict] = []


def available_memory_bytes(device: Device) -> int:
    """Free memory on ``device`` now: CUDA's free memory, or the kernel's MemAvailable."""
    if device == Device.CUDA:
        return int(torch.cuda.mem_get_info()[0])
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def capped_size(device: Device, where: str, parameter: str, wanted: int, bytes_needed: Callable[[int], float],
                shrink: Callable[[int], int] = lambda size: size // 2, smallest: int = 1,
                share: float = MEMORY_SHARE) -> int:
    """The largest of ``wanted``, ``shrink(wanted)``, … (down to ``smallest``) whose
    ``bytes_needed`` fits in ``share`` of the memory available on ``device``; a size below
    ``wanted`` is recorded as a cap of ``parameter`` for ``where`` (claim and check). A larger
    share than ``MEMORY_SHARE`` is for a ``bytes_needed`` that bounds every array the check
    holds (the in-place modular LU), not one that estimates the main ones. Use it through
    ``Context.capped_size``."""
    budget = share * available_memory_bytes(device)
    size = wanted
    while size > smallest and bytes_needed(size) > budget:
        size = max(smallest, shrink(size))
    if size != wanted:
        _caps.append({"where": where, "parameter": parameter, "wanted": wanted, "used": size,
                      "bytes_wanted": int(bytes_needed(wanted)), "bytes_budget": int(budget), "device": device})
    return size


def reset_peak_resident_memory() -> bool:
    """Reset this process's resident-set high-water mark (Linux ≥ 4.0: writing 5 to
    /proc/self/clear_refs); False where the kernel does not allow it."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def _status_bytes(field: str) -> int | None:
    """A memory field of /proc/self/status (``VmRSS``, ``VmHWM``) in bytes; None where the
    kernel has no such file."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def resident_memory_bytes() -> int | None:
    """This process's resident size now (None where it cannot be read)."""
    return _status_bytes("VmRSS")


def peak_resident_memory_bytes() -> int | None:
    return _status_bytes("VmHWM")


_earlier_peak = 0  # the high-water mark a ``peak_memory`` block reset, for the claim's ``measured``


@contextlib.contextmanager
def peak_memory() -> Iterator[dict]:
    """Measure a block: yields a dict that, on exit, holds ``peak_bytes``, the resident
    high-water mark during the block above the resident size at its start (None where the
    kernel cannot reset the mark). The claim's own peak (``measured``) survives the reset."""
    global _earlier_peak
    _earlier_peak = max(_earlier_peak, peak_resident_memory_bytes() or 0)
    before = resident_memory_bytes()
    usage: dict = {}
    reset = reset_peak_resident_memory()
    try:
        yield usage
    finally:
        high = peak_resident_memory_bytes()
        usage["peak_bytes"] = high - before if reset and high is not None and before is not None else None


@contextlib.contextmanager
def measured(device: Device) -> Iterator[dict]:
    """Measure one claim's run: yields a dict that, on exit, holds the caps recorded during
    the run and the peak memory (the process's resident-set high-water mark, reset at the
    start where the kernel allows; on CUDA also torch's peak allocation)."""
    global _earlier_peak
    del _caps[:]
    usage: dict = {}
    _earlier_peak = 0
    since_start = reset_peak_resident_memory()
    if device == Device.CUDA:
        torch.cuda.reset_peak_memory_stats()
    try:
        yield usage
    finally:
        usage["capped"] = list(_caps)
        high = peak_resident_memory_bytes()
        usage["peak_resident_bytes"] = None if high is None else max(high, _earlier_peak)
        usage["peak_resident_since"] = "claim start" if since_start else "process start"
        if device == Device.CUDA:
            usage["peak_cuda_allocated_bytes"] = int(torch.cuda.max_memory_allocated())
        del _caps[:]
