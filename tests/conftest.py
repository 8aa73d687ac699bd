"""Shared test settings: hypothesis profiles kept small enough for a 2-core CI."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=int(os.environ.get("ASSAY_HYPOTHESIS_EXAMPLES", "150")), deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("ci")
