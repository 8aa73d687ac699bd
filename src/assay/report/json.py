"""JSON for machines: full precision, null (never NaN) for undefined values."""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["render_json"]


def render_json(data: Any) -> str:
    """``data.to_dict()`` (or a dict) as strict JSON.

    The results put null, with a note, where a value is undefined; should a NaN or
    an infinity still reach this point, it is written as null too, so the output is
    always valid JSON (RFC 8259 has no NaN or infinity).
    """
    payload = data.to_dict() if hasattr(data, "to_dict") else data
    return json.dumps(_finite(payload), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _finite(value: Any) -> Any:
    """The payload with every non-finite float replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value
