"""``assay.compare(..., direction=)`` and ``assay compare --direction``, and the note on a model that looks inverted
(issue 18, item 8: compare had no direction and said nothing of a model whose AUC was 0.005).

Oracles: the same comparison with the scores negated and the default direction (pROC's ``direction = ">"`` is
``"<"`` on the negated scores), ``assay.evaluate(..., direction="lower")`` for each model alone, and scikit-learn's
``roc_auc_score`` of the negated scores; exact to 1e-12.
"""

import json

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

import assay
from assay import InvalidInput
from assay.cli import main

rng = np.random.default_rng(11)
N = 120
Y = np.r_[np.ones(N // 2), np.zeros(N // 2)].astype(int)
GOOD = np.round(Y + rng.normal(0, 0.6, N), 2)  # an AUC near 0.9, ties included
BAD = np.round(-Y + rng.normal(0, 0.3, N), 2)  # an AUC near 0.01: inverted
BOOT = 200


def run(argv, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_direction_lower_is_the_default_direction_on_the_negated_scores():
    lower = assay.compare(Y, {"good": {"y_score": -GOOD}, "bad": {"y_score": -BAD}}, direction="lower", threshold=-0.5,
                          bootstrap=BOOT)
    higher = assay.compare(Y, {"good": {"y_score": GOOD}, "bad": {"y_score": BAD}}, threshold=0.5, bootstrap=BOOT)
    for a, b, scores in zip(lower.reports, higher.reports, (GOOD, BAD), strict=True):
        assert a.ranking.roc_auc.value == pytest.approx(roc_auc_score(Y, scores), abs=1e-12)
        assert a.ranking.roc_auc.value == pytest.approx(b.ranking.roc_auc.value, abs=1e-12)
        # positive iff score <= -0.5 is positive iff -score >= 0.5: the same matrix
        assert a.confusion.counts.tolist() == b.confusion.counts.tolist()
    for name in ("delong", "mcnemar", "accuracy_difference"):
        assert lower.test_dict(name)["pvalue"] == pytest.approx(higher.test_dict(name)["pvalue"], abs=1e-12)
    assert lower.test_dict("delong")["difference"] == pytest.approx(higher.test_dict("delong")["difference"],
                                                                    abs=1e-12)
    alone = assay.evaluate(Y, y_score=-BAD, direction="lower", threshold=-0.5, bootstrap=BOOT)
    assert lower.reports[1].metrics["accuracy"].value == alone.metrics["accuracy"].value
    assert any(note.startswith("direction lower for good, bad") for note in lower.notes)


def test_a_model_whose_auc_is_significantly_below_a_half_is_named_as_inverted():
    c = assay.compare(Y, {"good": {"y_score": GOOD}, "bad": {"y_score": BAD}}, bootstrap=BOOT)
    inverted = [note for note in c.notes if "looks inverted" in note]
    assert len(inverted) == 1 and inverted[0].startswith("bad looks inverted")
    assert "significantly below 0.5" in inverted[0] and "--direction lower" in inverted[0]
    # turned round, it is not inverted any more, and the good one, read the wrong way, is
    turned = assay.compare(Y, {"good": {"y_score": GOOD}, "bad": {"y_score": BAD}}, direction="lower",
                           bootstrap=BOOT)
    assert [n.split(" looks")[0] for n in turned.notes if "looks inverted" in n] == ["good"]
    # every positive below every negative: AUC 0, said as such, with three models too
    zero = np.where(Y == 1, 0.1, 0.9)
    c3 = assay.compare(Y, {"a": {"y_score": GOOD}, "b": {"y_score": zero}, "c": {"y_score": GOOD * 2}},
                       threshold=0.5, bootstrap=BOOT)
    assert any(n.startswith("b looks inverted: every positive scores below every negative (AUC 0)") for n in c3.notes)


def test_auto_chooses_per_model_and_says_so():
    c = assay.compare(Y, {"good": {"y_score": GOOD}, "bad": {"y_score": BAD}}, direction="auto", bootstrap=BOOT)
    assert [r.direction for r in c.reports] == ["higher", "lower"]
    assert c.reports[1].ranking.roc_auc.value == pytest.approx(roc_auc_score(Y, -BAD), abs=1e-12)
    assert any("good higher, bad lower" in note and "biases the AUC upward" in note for note in c.notes)
    assert not any("looks inverted" in note for note in c.notes)


def test_a_direction_without_scores_or_of_no_kind_is_refused():
    labels = (GOOD > 0.5).astype(int)
    with pytest.raises(InvalidInput, match=r"a direction applies to models given as scores \(y_score=\)") as e:
        assay.compare(Y, labels, 1 - labels, direction="lower")
    assert e.value.field == "direction"
    with pytest.raises(InvalidInput, match="'sideways' is not one of"):
        assay.compare(Y, {"y_score": GOOD}, {"y_score": BAD}, direction="sideways")
    # labels beside scores: the direction applies to the score models only
    c = assay.compare(Y, labels, {"y_score": -GOOD}, direction="lower", threshold=-0.5, bootstrap=BOOT)
    assert c.reports[0].direction == "higher" and c.reports[1].direction == "lower"


@pytest.fixture()
def scores_csv(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("y,good,bad,label\n" + "".join(f"{t},{g},{b},{int(g > 0.5)}\n" for t, g, b in zip(Y, GOOD, BAD)))
    return str(path)


def test_cli_direction_and_the_inverted_note(scores_csv, capsys):
    status, out, err = run(["compare", scores_csv, "--truth", "y", "--score", "good", "--score", "bad",
                            "--bootstrap", str(BOOT)], capsys)
    assert status == 0, err
    assert "bad looks inverted" in out and "--direction lower" in out
    status, out, err = run(["compare", scores_csv, "--truth", "y", "--score", "good", "--score", "bad",
                            "--direction", "lower", "--bootstrap", str(BOOT), "--format", "json"], capsys)
    assert status == 0, err
    d = json.loads(out)
    aucs = [m["roc_auc"]["value"] for m in d["models"]]
    assert aucs == pytest.approx([roc_auc_score(Y, -GOOD), roc_auc_score(Y, -BAD)], abs=1e-12)
    assert any(note.startswith("good looks inverted") for note in d["notes"])


def test_cli_direction_with_labels_is_one_line(scores_csv, capsys):
    status, out, err = run(["compare", scores_csv, "--truth", "y", "--pred", "label", "--pred", "label",
                            "--direction", "lower"], capsys)
    assert status == 2 and out == ""
    assert err == "assay: error: --direction: a direction applies to models given as scores (--score): none of " \
                  "these is\n"


def test_cli_unpaired_direction(tmp_path, capsys):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("y,s\n" + "".join(f"{t},{-s}\n" for t, s in zip(Y, GOOD)))
    b.write_text("y,s\n" + "".join(f"{t},{-s}\n" for t, s in zip(Y[::2], GOOD[::2])))
    status, out, err = run(["compare", str(a), str(b), "--truth", "y", "--score", "s", "--unpaired",
                            "--direction", "lower", "--format", "json"], capsys)
    assert status == 0, err
    aucs = [m["roc_auc"]["value"] for m in json.loads(out)["models"]]
    assert aucs == pytest.approx([roc_auc_score(Y, GOOD), roc_auc_score(Y[::2], GOOD[::2])], abs=1e-12)
