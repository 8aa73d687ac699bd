"""The best threshold under a constraint (--constraint precision>=0.8): checked against a direct search over
every distinct threshold (positive iff score >= t), on many random score sets with ties."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import assay
from assay.cli import main
from assay.errors import InvalidInput

ASAH = str(Path(__file__).resolve().parent / "data" / "asah.csv")


def _direct(y: np.ndarray, s: np.ndarray, name: str, op: str, bound: float) -> tuple[float, float] | None:
    """(threshold, maximised rate) by brute force; the highest threshold among ties."""
    best = None
    for t in sorted(set(s), reverse=True):
        pred = s >= t
        tp, fp = int((pred & y).sum()), int((pred & ~y).sum())
        recall, spec = tp / y.sum(), 1 - fp / (~y).sum()
        precision = tp / (tp + fp)
        value = {"precision": precision, "fpr": 1 - spec, "recall": recall}[name]
        if not (value >= bound - 1e-12 if op == ">=" else value <= bound + 1e-12):
            continue
        objective = spec if name == "recall" else recall
        if best is None or objective > best[1]:
            best = (t, objective)
    return best


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 12)), min_size=6, max_size=50),
       st.sampled_from([("precision", ">="), ("fpr", "<="), ("recall", ">=")]), st.integers(0, 10))
def test_against_a_direct_search(rows, constraint, tenths):
    y = np.array([r[0] for r in rows])
    y[0], y[1] = True, False
    s = np.array([r[1] for r in rows], dtype=float)
    name, op = constraint
    bound = tenths / 10
    expected = _direct(y, s, name, op, bound)
    if expected is None:
        with pytest.raises(InvalidInput, match="no threshold meets"):
            assay.rank(y, s, constraints=[f"{name}{op}{bound}"])
        return
    c = assay.rank(y, s, constraints=[f"{name}{op}{bound}"]).constrained[0]
    assert c.threshold == expected[0]
    assert c.rates["specificity" if name == "recall" else "recall"].value == pytest.approx(expected[1], abs=1e-12)


def test_cli_constraints(capsys, tmp_path):
    status = main(["report", ASAH, "--truth", "outcome", "--score", "s100b", "--constraint", "precision>=0.8",
                   "--constraint", "recall >= 0.9", "--format", "json"])
    out, err = capsys.readouterr()
    assert status == 0, err
    got = json.loads(out)["ranking"]["constrained_thresholds"]
    assert [c["maximized"] for c in got] == ["recall", "specificity"]
    assert got[0]["threshold"] == 0.48 and got[0]["rates"]["precision"]["value"] >= 0.8
    status = main(["report", ASAH, "--truth", "outcome", "--score", "s100b", "--constraint", "precision>=0.8",
                   "--memory", "1KB", "--format", "json"])
    out, err = capsys.readouterr()
    assert status == 0 and json.loads(out)["ranking"]["constrained_thresholds"][0] == got[0]
    for bad, message in (("auc>=0.8", "is not a constraint"), ("precision>=1.5", "within [0, 1]")):
        status = main(["report", ASAH, "--truth", "outcome", "--score", "s100b", "--constraint", bad,
                       "-o", str(tmp_path / "o.json")])
        out, err = capsys.readouterr()
        assert status == 2 and message in err and len(err.strip().splitlines()) == 1
        assert not (tmp_path / "o.json").exists()
