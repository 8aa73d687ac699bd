"""A value with its interval, as every figure in assay is reported."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

__all__ = ["ConfidenceInterval", "Estimate", "finite_or_none"]


def finite_or_none(x: Any) -> float | None:
    """A float for JSON: None for NaN and infinities."""
    if x is None:
        return None
    f = float(x)
    return f if math.isfinite(f) else None


@dataclass(frozen=True)
class ConfidenceInterval:
    """The interval [low, high] at some confidence level (as in SciPy), read as ``.low`` and ``.high`` or as
    the pair ``(low, high)``: ``ci[0]``, ``ci[1]``, ``low, high = ci``, ``tuple(ci)``.

    >>> ci = ConfidenceInterval(0.25, 0.75)
    >>> ci[0], ci[-1], len(ci), tuple(ci)
    (0.25, 0.75, 2, (0.25, 0.75))
    """

    low: float
    high: float

    def __iter__(self):
        yield self.low
        yield self.high

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index: Any) -> Any:
        return (self.low, self.high)[index]

    def contains(self, x: float) -> bool:
        return self.low <= x <= self.high

    def to_list(self) -> list[float | None]:
        return [finite_or_none(self.low), finite_or_none(self.high)]


@dataclass(frozen=True)
class Estimate:
    """A metric's value, its interval, the interval's method, and why a part is missing.

    ``value`` is None (never a silent 0) when the metric is undefined, and
    ``note`` then says why; ``note`` can also explain a missing interval.
    """

    value: float | None
    ci: ConfidenceInterval | None = None
    method: str | None = None
    note: str | None = None

    @classmethod
    def undefined(cls, note: str) -> Estimate:
        return cls(None, None, None, note)

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": finite_or_none(self.value),
            "ci": self.ci.to_list() if self.ci is not None else None,
            "method": self.method,
            "note": self.note,
        }
