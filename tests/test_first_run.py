"""The first large run on a new installation (issue 18, item 19): numba compiles only the kernels a run
uses, the rest beside the reading, and the command line says so on a terminal."""

from __future__ import annotations

import json
import os
import subprocess
import sys

SCRIPT = """
import json, time
from assay.summaries import kernels, numba_kernels
before = kernels.cached()
k = kernels.compiled(kernels.MIN_SIZE)
loaded = {name: len(getattr(k, name).signatures) for name in numba_kernels.KERNELS}
kernels.warm_up()
deadline = time.time() + 240
while time.time() < deadline and any(not getattr(k, n).signatures for n in numba_kernels.KERNELS):
    time.sleep(0.2)
time.sleep(1)
print(json.dumps({"before": before, "loaded": loaded, "after": kernels.cached(),
                  "warm": {n: len(getattr(k, n).signatures) for n in numba_kernels.KERNELS}}))
"""


def test_loading_compiles_one_kernel_and_warming_up_the_rest(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    env.pop("ASSAY_NO_COMPILED", None)
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    state = json.loads(done.stdout)
    assert state["before"] is False  # a new cache: the command line says it compiles
    assert sum(state["loaded"].values()) == 1  # loading checks that numba works, with one kernel
    assert all(state["warm"].values())  # warming up compiled every kernel
    assert state["after"] is True
