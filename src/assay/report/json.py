"""JSON for machines: full precision, null (never NaN) for undefined values."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["render_json"]


def render_json(data: Any) -> str:
    """``data.to_dict()`` (or a dict) as strict JSON: NaN or infinity is a bug here."""
    payload = data.to_dict() if hasattr(data, "to_dict") else data
    return json.dumps(payload, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
