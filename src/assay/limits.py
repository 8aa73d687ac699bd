"""assay's documented limits (provisional: being written by the limits work)."""

MAX_CLASSES = 1_000
MAX_BOOTSTRAP_RESAMPLES = 1_000_000
MAX_COUNT = 2**53
