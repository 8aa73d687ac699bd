"""--roc-bins: the binned, approximate ROC of Spark's BinaryClassificationMetrics(numBins), only on request,
labelled approximate, with a bound on the AUC's error that holds."""

import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import assay
from assay.cli import main
from assay.summaries.scores import ScoreCounts


def spark_grouping(scores, pos, neg, bins):
    """Spark's downsampling as documented: bins of floor(count / numBins) consecutive points (by decreasing
    score), each point of a bin taking the first (highest) score, its counts summed; none below 2."""
    grouping = len(scores) // bins
    if grouping < 2:
        return scores, pos, neg
    out = [], [], []
    for start in range(0, len(scores), grouping):
        out[0].append(scores[start])
        out[1].append(sum(pos[start:start + grouping]))
        out[2].append(sum(neg[start:start + grouping]))
    return out


@settings(max_examples=60)
@given(st.integers(0, 2**32 - 1), st.integers(2, 50), st.integers(10, 400))
def test_binning_is_sparks_and_the_bound_holds(seed, bins, n):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.4
    y[0], y[1] = True, False
    s = np.round(rng.random(n) + 0.3 * y, int(rng.integers(1, 4)))
    exact = ScoreCounts.from_arrays(y, s)
    binned = exact.binned(bins)
    reference = spark_grouping(exact.scores.tolist(), exact.positives.tolist(), exact.negatives.tolist(), bins)
    assert binned.scores.tolist() == list(reference[0])
    assert binned.positives.tolist() == list(reference[1]) and binned.negatives.tolist() == list(reference[2])

    whole = assay.rank(y, y_score=s)
    approx = assay.rank(y, y_score=s, roc_bins=bins)
    bound = approx.approximation["auc_error_bound"]
    assert abs(whole.roc_auc.value - approx.roc_auc.value) <= bound + 1e-12
    assert whole.approximation is None


def test_the_report_says_it_is_approximate(tmp_path, capsys):
    rng = np.random.default_rng(1)
    y = rng.random(2000) < 0.3
    s = np.round(rng.random(2000) + 0.2 * y, 3)
    path = tmp_path / "p.csv"
    path.write_text("y,p\n" + "".join(f"{int(a)},{b}\n" for a, b in zip(y, s)))
    assert main(["report", str(path), "--truth", "y", "--score", "p", "--threshold", "0.5", "--roc-bins", "10",
                 "--format", "json"]) == 0
    ranking = json.loads(capsys.readouterr().out)["ranking"]
    assert ranking["approximation"]["exact"] is False and ranking["approximation"]["roc_bins"] == 10
    assert "approximate" in ranking["roc_auc"]["method"] and "approximate" in ranking["notes"][0]
    assert main(["report", str(path), "--truth", "y", "--score", "p", "--threshold", "0.5", "--roc-bins", "10"]) == 0
    assert "approximate" in capsys.readouterr().out
    assert main(["report", str(path), "--truth", "y", "--score", "p", "--threshold", "0.5", "--roc-bins", "1"]) == 2
    assert "--roc-bins" in capsys.readouterr().err


def test_exact_by_default(tmp_path, capsys):
    r = assay.evaluate([1, 0, 1, 0], y_score=[0.9, 0.1, 0.8, 0.3])
    assert r.ranking.approximation is None and r.ranking.to_dict()["approximation"] is None
