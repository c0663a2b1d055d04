"""The context one check runs in: profile, seed, device and reproducible randomness."""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from ..errors import SettingError
from ..lazy import torch
from . import settings
from .vocabulary import Device

T = TypeVar("T")


def stable_hash(*labels: object) -> list[int]:
    """32-bit words derived from labels, identical across runs and platforms (unlike hash())."""
    return [zlib.crc32(str(label).encode("utf-8")) for label in labels]


def seed_words(seed: int, *labels: object) -> list[int]:
    """The words of the SeedSequence behind ``seeded_rng(seed, *labels)``: recorded, they
    rebuild a draw without the suite (np.random.default_rng(np.random.SeedSequence(words)))."""
    return [seed, *stable_hash(*labels)]


def seeded_rng(seed: int, *labels: object) -> np.random.Generator:
    """A numpy Generator from a run seed and labels. Contexts add the claim and check names
    to the labels; call this directly only for samples that several claims share."""
    return np.random.default_rng(np.random.SeedSequence(seed_words(seed, *labels)))


def seeded_int(seed: int, *labels: object) -> int:
    """A 63-bit integer seed (for Hypothesis, torch) derived like ``seeded_rng``."""
    state = np.random.SeedSequence([seed, *stable_hash(*labels)]).generate_state(1, np.uint64)
    return int(state[0] >> np.uint64(1))


@dataclass(frozen=True)
class Context:
    profile: str
    seed: int
    device: Device  # CPU or CUDA, already resolved against the machine (settings.resolve_device)
    claim_id: str = ""
    check_name: str = ""
    show_progress: bool = False

    def __post_init__(self) -> None:
        device = settings.validate_device(self.device)
        if device is Device.AUTO:
            raise SettingError("a context runs on a resolved device (cpu or cuda): resolve 'auto' first")
        object.__setattr__(self, "device", device)

    def for_check(self, claim_id: str, check_name: str) -> Context:
        return Context(self.profile, self.seed, self.device, claim_id, check_name, self.show_progress)

    def by_profile(self, quick: T, ci: T | None = None, thorough: T | None = None, large: T | None = None) -> T:
        return settings.by_profile(self.profile, quick, ci, thorough, large)

    def rng(self, *labels: object) -> np.random.Generator:
        """Randomness for this check: the run seed, the claim and check names, extra labels."""
        return seeded_rng(self.seed, self.claim_id, self.check_name, *labels)

    def seed_words(self, *labels: object) -> list[int]:
        """The SeedSequence words of ``rng(*labels)``."""
        return seed_words(self.seed, self.claim_id, self.check_name, *labels)

    def int_seed(self, *labels: object) -> int:
        return seeded_int(self.seed, self.claim_id, self.check_name, *labels)

    def hypothesis_settings(self, **overrides):
        return settings.hypothesis_settings(self.profile, **overrides)

    def torch_device(self):
        return torch.device(self.device)

    def torch_generator(self, *labels: object, device: str | None = None):
        """A seeded torch Generator on the context's device (or ``device``, e.g. "cpu" for
        fixed inputs that must not depend on where the checks run)."""
        generator = torch.Generator(device=device or self.device)
        generator.manual_seed(self.int_seed(*labels))
        return generator

    def capped_size(self, parameter: str, wanted: int, bytes_needed: Callable[[int], float],
                    shrink: Callable[[int], int] = lambda size: size // 2, smallest: int = 1,
                    share: float | None = None) -> int:
        """``wanted``, or the largest smaller size on the ``shrink`` ladder whose memory fits
        the device (``resources.capped_size``); a cap is recorded in the claim's result."""
        from . import resources

        return resources.capped_size(self.device, f"{self.claim_id} {self.check_name}", parameter, wanted,
                                     bytes_needed, shrink, smallest, share or resources.MEMORY_SHARE)

    def progress(self, iterable: Iterable[T], desc: str, total: int | None = None) -> Iterable[T]:
        if not self.show_progress:
            return iterable
        from tqdm import tqdm

        return tqdm(iterable, desc=f"{self.claim_id} {desc}", total=total, leave=False)
