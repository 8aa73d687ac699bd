"""The compiled kernels (numba) against the numpy code they stand in for, on the same inputs.

Large inputs go through ``assay.summaries.numba_kernels``; the numpy code serves small
ones and machines without numba. Both must give the same numbers: here the
threshold is moved to 0 (every input compiled) and compared with the kernels
switched off, on random inputs with heavy ties, float32 and float64 scores, -0.0,
negative scores and single-run cases. Counts, thresholds and keys must be
identical; areas agree to 1e-12 (they are summed in a different order).
"""

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import assay
from assay.evaluation import compatible as C
from assay.summaries import kernels
from assay.summaries.probabilities import ProbabilitySummary
from assay.summaries.scores import sort_keys
from helpers import kernels_on

CLOSE = {"rtol": 1e-12, "atol": 1e-12}


@st.composite
def labelled_scores(draw):
    n = draw(st.integers(2, 120))
    y = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    if y.all() or not y.any():
        y[0] = not y[0]
    decimals = draw(st.sampled_from([0, 1, 2, 6]))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    sign = draw(st.sampled_from(["non-negative", "negative", "both"]))
    values = np.round(np.array(draw(st.lists(st.floats(0, 1), min_size=n, max_size=n))), decimals)
    if sign == "negative":
        values = -values  # zeros become -0.0: must key as 0.0
    elif sign == "both":
        values = values - 0.5
    return y, values.astype(dtype)


def test_the_kernels_are_there_when_asked():
    assert kernels.compiled(kernels.MIN_SIZE) is not None  # numba is a dependency
    assert kernels.compiled(kernels.MIN_SIZE - 1) is None


@settings(max_examples=150, deadline=None)
@given(labelled_scores(), st.booleans())
def test_curves_and_areas_equal_the_numpy_code(data, drop):
    y, s = data

    def run():
        return (C.roc_curve(y, s, drop_intermediate=drop), C.roc_auc(y, s), C.average_precision(y, s),
                sort_keys(y, s).cumulative())

    with kernels_on(False):
        want = run()
    with kernels_on(True):
        got = run()
    for g, w in zip(got[0], want[0], strict=True):
        np.testing.assert_array_equal(g, w)
    assert got[1] == pytest.approx(want[1], rel=1e-12, abs=1e-12)
    assert got[2] == pytest.approx(want[2], rel=1e-12, abs=1e-12)
    for g, w in zip(got[3], want[3], strict=True):
        np.testing.assert_array_equal(g, w)
    # and both are scikit-learn's
    sk = skm.roc_curve(y, s, drop_intermediate=drop)
    np.testing.assert_allclose(got[0][0], sk[0], **CLOSE)
    np.testing.assert_allclose(got[0][1], sk[1], **CLOSE)
    np.testing.assert_array_equal(got[0][2], np.asarray(sk[2], dtype=np.float64))
    assert got[1] == pytest.approx(skm.roc_auc_score(y, s), rel=1e-12)
    assert got[2] == pytest.approx(skm.average_precision_score(y, s), rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(labelled_scores())
def test_keys_equal_the_numpy_code(data):
    y, s = data
    with kernels_on(False):
        want = sort_keys(y, s)
    with kernels_on(True):
        got = sort_keys(y, s)
    # the compiled pass refuses a negative score and leaves it to numpy: equal keys either way
    np.testing.assert_array_equal(got.negative_keys, want.negative_keys)
    np.testing.assert_array_equal(got.positive_keys, want.positive_keys)


@settings(max_examples=30, deadline=None)
@given(labelled_scores())
def test_evaluate_equals_the_numpy_code(data):
    y, s = data
    threshold = float(np.median(s))
    with kernels_on(False):
        want = assay.evaluate(y, y_score=s, threshold=threshold, bootstrap=100).to_dict()
    with kernels_on(True):
        got = assay.evaluate(y, y_score=s, threshold=threshold, bootstrap=100).to_dict()
    _assert_same(got, want)


def _assert_same(got, want, path="$"):
    if isinstance(want, dict):
        assert got.keys() == want.keys(), path
        for key in want:
            _assert_same(got[key], want[key], f"{path}.{key}")
    elif isinstance(want, list):
        assert len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _assert_same(g, w, f"{path}[{i}]")
    elif isinstance(want, float):
        assert got == pytest.approx(want, rel=1e-10, abs=1e-12, nan_ok=True), path
    else:
        assert got == want, path


def test_a_large_input_takes_the_compiled_path_and_agrees(monkeypatch):
    monkeypatch.delenv("ASSAY_NO_COMPILED", raising=False)
    rng = np.random.default_rng(4)
    n = 300_000
    y = rng.random(n) < 0.3
    s = np.round(1 / (1 + np.exp(-(rng.normal(size=n) + y))), 4).astype(np.float32)
    assert kernels.compiled(n) is not None
    got = C.roc_curve(y, s), C.roc_auc(y, s), C.average_precision(y, s)
    with kernels_on(False):
        want = C.roc_curve(y, s), C.roc_auc(y, s), C.average_precision(y, s)
    for g, w in zip(got[0], want[0], strict=True):
        np.testing.assert_array_equal(g, w)
    assert got[1] == pytest.approx(want[1], rel=1e-12)
    assert got[2] == pytest.approx(want[2], rel=1e-12)


# ----------------------------------------------------------------------------
# the compiled kernels never stop a run (reliability audit, item 2)


def test_a_failing_compiler_falls_back(monkeypatch):
    """numba's cache or compiler failing (RuntimeError at build) leaves the in-memory kernels, then numpy."""
    from assay.summaries import numba_kernels

    real_build = numba_kernels.build
    calls = []

    def build(*, cache):
        calls.append(cache)
        if cache:
            raise RuntimeError("cannot cache function 'make_keys': no locator available")
        return real_build(cache=False)

    monkeypatch.setattr(numba_kernels, "build", build)
    monkeypatch.setattr(kernels, "_module", None)
    assert kernels.compiled(kernels.MIN_SIZE) is not None and calls == [True, False]

    monkeypatch.setattr(numba_kernels, "build", lambda *, cache: (_ for _ in ()).throw(RuntimeError("no compiler")))
    monkeypatch.setattr(kernels, "_module", None)
    assert kernels.compiled(kernels.MIN_SIZE) is None  # the numpy path serves
    y = np.arange(300_000) % 3 == 0
    s = np.linspace(0, 1, 300_000)
    assert assay.roc_auc(y, s) == pytest.approx(0.5, abs=0.01)


def test_read_only_install_without_a_cache_directory(tmp_path):
    """A copy of the package where numba finds no cache directory (its __pycache__ cannot be made and no
    home or cache directory exists, as in a read-only system package or container): numba's cache raises
    "cannot cache function ...: no locator available", and 250,000 rows (the compiled path) must still give
    the numpy path's AUC. As root, permissions do not stop writes, so the directories are made impossible:
    a file named __pycache__, and HOME and XDG_CACHE_HOME under /dev/null."""
    import shutil
    import subprocess
    import sys

    site = tmp_path / "site"
    shutil.copytree(os.path.dirname(assay.__file__), site / "assay", ignore=shutil.ignore_patterns("__pycache__"))
    (site / "assay" / "summaries" / "__pycache__").write_text("not a directory")
    for root, dirs, files in os.walk(site):
        for name in dirs + files:
            os.chmod(os.path.join(root, name), 0o555 if name in dirs else 0o444)
    script = ("import numpy as np, assay\n"
              "from assay.summaries import numba_kernels, kernels\n"
              "try:\n"
              "    numba_kernels.build(cache=True)\n"
              "    print('numba could cache')\n"
              "except RuntimeError as e:\n"
              "    print('numba cannot cache:', e)\n"
              "rng = np.random.default_rng(0)\n"
              "y = rng.random(250_000) < 0.3\n"
              "s = rng.random(250_000) + y * 0.2\n"
              "a = assay.roc_auc(y, s)\n"
              "k = kernels.compiled(250_000)\n"
              "kernels._module = False\n"
              "b = assay.roc_auc(y, s)\n"
              "print(a == b, k is not None)\n")
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(site), "HOME": "/dev/null/home",
           "XDG_CACHE_HOME": "/dev/null/cache", "PYTHONDONTWRITEBYTECODE": "1"}
    for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        if name in os.environ:
            env[name] = os.environ[name]
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("numba cannot cache"), lines  # the situation of the audit is reproduced
    assert lines[1] == "True True", lines  # same AUC; kernels compiled in memory


def test_the_compiled_curve_reads_no_memory_left_as_it_was(monkeypatch):
    """The curve's slot 0 (+inf) once kept np.empty's bytes: a float32 signalling NaN there made numpy report an
    invalid value on the conversion (an error under this suite's warning filter), now and then in CI."""
    original = np.empty

    def dirty(shape, dtype=float, *args, **kwargs):  # every new buffer full of float32 signalling NaNs
        a = original(shape, dtype, *args, **kwargs)
        raw = a.view(np.uint8).reshape(-1)
        raw[:] = np.resize(np.array([0x01, 0x00, 0x80, 0x7F], np.uint8), raw.size)
        return a

    rng = np.random.default_rng(5)
    y = rng.random(1000) < 0.4
    s = np.round(rng.random(1000), 2).astype(np.float32)  # ties: the runs' pass, not the distinct one
    with kernels_on(True):
        monkeypatch.setattr(np, "empty", dirty)
        got = C.roc_curve(y, s)
        monkeypatch.setattr(np, "empty", original)
    with kernels_on(False):
        want = C.roc_curve(y, s)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


@st.composite
def score_counts(draw):
    """Decreasing distinct probabilities (0 and 1 among them at times) with class counts, or weights."""
    n = draw(st.integers(1, 60))
    values = np.array(draw(st.lists(st.floats(0, 1), min_size=n, max_size=n)))
    values = np.round(values, draw(st.sampled_from([1, 3, 17])))
    scores = np.unique(values)[::-1].copy()
    m = len(scores)
    weighted = draw(st.booleans())
    counts = st.floats(0, 5) if weighted else st.integers(0, 4)
    pos = np.array(draw(st.lists(counts, min_size=m, max_size=m)), dtype=np.float64 if weighted else np.int64)
    neg = np.array(draw(st.lists(counts, min_size=m, max_size=m)), dtype=np.float64 if weighted else np.int64)
    return scores, pos, neg


@settings(max_examples=80, deadline=None)
@given(score_counts(), st.sampled_from([None, 1e-3, 0.3]))
def test_losses_of_score_counts_equal_the_numpy_code(data, clip):
    """``ProbabilitySummary.from_score_counts``' compiled pass (the losses of each class in order) against its
    numpy code: counts of finite losses and flagged instances identical, sums to 1e-12, centred sums of squares
    to 1e-9 of the larger of them and the squared sum (they are differences of sums)."""
    scores, pos, neg = data
    a = ProbabilitySummary.from_score_counts(scores, pos, neg, labels=("no", "yes"), clip=clip)
    b = ProbabilitySummary.from_score_counts(scores, pos, neg, labels=("no", "yes"), clip=clip,
                                             kernels=kernels.compiled(kernels.MIN_SIZE))
    for name in ("quadratic", "absolute", "information", "log_loss"):
        ma, mb = getattr(a, name), getattr(b, name)
        assert ma.count.tolist() == mb.count.tolist(), name
        np.testing.assert_allclose(mb.total, ma.total, **CLOSE)
        scale = np.maximum(np.abs(ma.m2), 1.0)
        assert (np.abs(mb.m2 - ma.m2) <= 1e-9 * scale).all(), (name, ma.m2, mb.m2)
    assert (b.zero_probability, b.clipped, b.log_loss_clipped) == (a.zero_probability, a.clipped, a.log_loss_clipped)
    assert b.bin_count.tolist() == a.bin_count.tolist() and b.bin_observed.tolist() == a.bin_observed.tolist()
