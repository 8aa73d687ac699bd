"""Shared test settings: hypothesis profiles kept small enough for a 2-core CI."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    # derandomized: CI runs the same examples every time (a failure reproduces, nothing flakes); set
    # ASSAY_HYPOTHESIS_RANDOM=1 (and raise ASSAY_HYPOTHESIS_EXAMPLES) to search afresh
    "ci", max_examples=int(os.environ.get("ASSAY_HYPOTHESIS_EXAMPLES", "150")), deadline=None,
    derandomize=not os.environ.get("ASSAY_HYPOTHESIS_RANDOM"),
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("ci")
