"""``assay report --brief``: one screen on every input kind, no word broken, and the warnings kept.

Issue 18, items 2, 8 and 18: --brief crashed on the probabilities of several classes, took 44 lines at 80
columns (58 at 60, kappa's method cut mid-word), dropped the "scores look inverted" warning, and the CLI's
warning named the Python argument (``direction="lower"``) instead of the option.
"""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import assay
from helpers import run_cli as run

DATA = Path(__file__).parent / "data"
TWO_CLASS = str(DATA / "two_class_example.csv")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Small tables of every input kind (fixed data, made here)."""
    d = tmp_path_factory.mktemp("brief")
    rng = np.random.default_rng(0)
    n = 150
    y3 = rng.integers(0, 3, n)
    logits = rng.normal(size=(n, 3)) + 2.0 * np.eye(3)[y3]
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    frame = pd.DataFrame(proba, columns=["a", "b", "c"])
    frame["y"] = np.array(["a", "b", "c"])[y3]
    frame["p"] = np.array(["a", "b", "c"])[proba.argmax(axis=1)]
    frame.to_csv(d / "three.csv", index=False)
    y = rng.integers(0, 2, n)
    score = np.clip(0.35 * y + 0.65 * rng.random(n), 0, 1)
    w = np.round(rng.random(n) * 3, 1) + 0.1
    pd.DataFrame({"y": y, "s": score, "raw": score * 40 - 7, "p": (score >= 0.5).astype(int), "w": w,
                  "inv": 1 - score, "pinv": (score < 0.5).astype(int)}).to_csv(d / "two.csv", index=False)
    (d / "cm2.csv").write_text(",neg,pos\nneg,90,10\npos,20,80\n")
    (d / "cm3.csv").write_text(",a,b,c\na,40,5,5\nb,6,30,4\nc,3,7,50\n")
    a = rng.normal(size=80)
    pd.DataFrame({"y": a, "p": a + 0.5 * rng.normal(size=80)}).to_csv(d / "numeric.csv", index=False)
    return d


KINDS = {
    "labels, two classes": (["{two_class}", "--truth", "truth", "--pred", "predicted"], 2),
    "labels, three classes": (["{d}/three.csv", "--truth", "y", "--pred", "p"], 3),
    "confusion, two classes": (["--confusion", "{d}/cm2.csv", "--positive", "pos"], 2),
    "confusion, three classes": (["--confusion", "{d}/cm3.csv"], 3),
    "scores": (["{two_class}", "--truth", "truth", "--score", "Class1"], 2),
    "scores without a threshold": (["{d}/two.csv", "--truth", "y", "--score", "raw"], 2),
    "probabilities of three classes": (["{d}/three.csv", "--truth", "y", "--proba", "a,b,c"], 3),
    "weights that are not counts": (["{d}/two.csv", "--truth", "y", "--score", "s", "--weight", "w"], 2),
    "inverted scores": (["{d}/two.csv", "--truth", "y", "--score", "inv"], 2),
    "numeric predictions": (["{d}/numeric.csv", "--truth", "y", "--pred", "p", "--task", "regression"], 0),
}


def _argv(kind, d):
    args, _ = KINDS[kind]
    return ["report", *[a.format(d=d, two_class=TWO_CLASS) for a in args], "--brief", "--bootstrap", "200"]


def _pieces(word):
    """The ways a word may be cut at the end of a line without breaking it: between its hyphenated parts."""
    parts = re.findall(r"[^-]*-+|[^-]+$", word) or [word]
    return {"".join(parts[i:j]) for i in range(len(parts)) for j in range(i + 1, len(parts) + 1)}


def _broken_words(narrow, wide):
    """The tokens of ``narrow`` that are not words of ``wide`` (the same text unwrapped) nor whole hyphenated
    parts of one: a word cut in the middle."""
    allowed = set()
    for word in wide.split():
        allowed |= _pieces(word)
    return [t for t in narrow.split() if t not in allowed and set(t) != {"─"}]


@pytest.mark.parametrize("kind", list(KINDS))
def test_brief_works_on_every_input_kind_fits_one_screen_and_breaks_no_word(kind, files, capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    status, wide, err = run(_argv(kind, files), capsys)
    assert status == 0, err
    assert "Confusion matrix" not in wide and "Thresholds" not in wide and "Calibration" not in wide
    for columns in (80, 60):
        monkeypatch.setenv("COLUMNS", str(columns))
        status, out, err = run(_argv(kind, files), capsys)
        assert status == 0, err
        lines = out.splitlines()
        assert max(map(len, lines)) <= columns
        assert _broken_words(out, wide) == [], (columns, out)
        if columns == 80 and KINDS[kind][1] == 2:
            assert len(lines) <= 24, out  # one screen


def test_brief_of_several_classes_probabilities_gives_their_ranking(files, capsys):
    status, out, err = run(_argv("probabilities of three classes", files), capsys)
    assert status == 0, err
    assert "ROC AUC, macro (one vs rest)" in out and "Hand & Till's M" in out and "Average precision, macro" in out
    assert "Accuracy is significantly above the largest class's" in out


def test_brief_keeps_the_inverted_warning_in_the_options_words(files, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    status, out, err = run(_argv("inverted scores", files), capsys)
    assert status == 0, err
    assert "the scores look inverted" in out and "--direction lower" in out and 'direction="lower"' not in out
    assert "(or name the other class with --positive)" in out
    status, full, err = run(_argv("inverted scores", files)[:-3], capsys)  # the full report says it the same way
    assert "--direction lower" in full and 'direction="lower"' not in full
    status, out, err = run([*_argv("inverted scores", files)[:-3], "--format", "json"], capsys)
    assert "--direction lower" in " ".join(__import__("json").loads(out)["ranking"]["notes"])
    # the Python API keeps its own words
    frame = pd.read_csv(files / "two.csv")
    r = assay.evaluate(frame["y"], y_score=frame["inv"], bootstrap=200)
    assert any('direction="lower"' in note for note in r.ranking.notes)


def test_brief_says_a_negative_kappa_is_below_zero(files, capsys):
    status, out, err = run(_argv("inverted scores", files), capsys)
    assert status == 0, err
    assert re.search(r"Kappa -0\.\d+ is significantly below 0", out)
    assert "significantly above 0" not in out


def test_scores_with_every_pair_wrong_are_said_to_look_inverted(tmp_path, capsys):
    y = np.array([0] * 30 + [1] * 30)
    s = np.r_[np.linspace(0.6, 1.0, 30), np.linspace(0.0, 0.4, 30)]  # every positive below every negative
    r = assay.evaluate(y, y_score=s)
    assert r.ranking.roc_auc.value == 0.0 and r.ranking.roc_auc.ci is None
    assert any(n.startswith("the scores look inverted: every positive scores below every negative (AUC 0)")
               for n in r.ranking.notes)
    path = tmp_path / "zero.csv"
    pd.DataFrame({"y": y, "s": s}).to_csv(path, index=False)
    status, out, err = run(["report", str(path), "--truth", "y", "--score", "s", "--brief"], capsys)
    assert status == 0 and "every positive scores below every negative" in out and "--direction lower" in out
    good = assay.evaluate(y, y_score=1 - s)  # the same scores the right way round: nothing to say
    assert not any("inverted" in n for n in good.ranking.notes)


def test_predicted_labels_worse_than_random_get_a_hint(files, capsys):
    frame = pd.read_csv(files / "two.csv")
    r = assay.evaluate(frame["y"], frame["pinv"])  # below the ROC diagonal
    hint = [n for n in r.notes if n.startswith("the predictions look worse than random")]
    assert len(hint) == 1 and "below random predictions' 50%" in hint[0] and "swapping the two" in hint[0]
    assert not any("worse than random" in n for n in assay.evaluate(frame["y"], frame["p"]).notes)
    three = pd.read_csv(files / "three.csv")
    shifted = three["p"].map({"a": "b", "b": "c", "c": "a"})  # the classes coded one off
    r3 = assay.evaluate(three["y"], shifted)
    assert any("below random predictions' 33.3%" in n and "code the classes" in n for n in r3.notes)
    assert not any("worse than random" in n for n in assay.evaluate(three["y"], three["p"]).notes)
    # the command line, brief or not, and a confusion matrix
    path = files / "two.csv"
    status, out, err = run(["report", str(path), "--truth", "y", "--pred", "pinv", "--brief"], capsys)
    assert status == 0 and "the predictions look worse than random" in out
    m = assay.evaluate_confusion([[10, 90], [85, 15]], labels=["neg", "pos"], positive="pos")
    assert any("worse than random" in n for n in m.notes)


def test_brief_gives_the_reason_of_a_missing_interval(tmp_path, capsys):
    y = np.array([0] * 30 + [1] * 30)
    s = np.r_[np.linspace(0.0, 0.4, 30), np.linspace(0.6, 1.0, 30)]  # perfectly separated
    path = tmp_path / "perfect.csv"
    pd.DataFrame({"y": y, "s": s}).to_csv(path, index=False)
    status, out, err = run(["report", str(path), "--truth", "y", "--score", "s", "--brief"], capsys)
    assert status == 0, err
    assert "ROC AUC: no interval: the standard error is 0 (the classes are perfectly separated)" in out
    assert "Cohen's kappa: no interval: the standard error is 0 (perfect agreement)" in out


def test_brief_of_weights_that_are_not_counts_claims_no_intervals(files, capsys):
    status, out, err = run(_argv("weights that are not counts", files), capsys)
    assert status == 0, err
    assert "95% CI" not in out and "confidence intervals" not in out
    assert "no interval: the sample weights are not counts" in out


def test_brief_says_the_probabilities_sentences_when_an_option_of_theirs_is_asked(files, capsys):
    """--calibration, --calibration-class, --bins, --prior, --clip change the probabilities' sections, which one
    screen leaves out: asked for, their sentences are said (not a silent default); not asked, one screen stays
    as it was."""
    base = ["report", TWO_CLASS, "--truth", "truth", "--score", "Class1", "--brief", "--bootstrap", "200"]
    status, plain, err = run(base, capsys)
    assert status == 0 and "calibration" not in plain and "quadratic loss" not in plain
    status, out, err = run([*base, "--calibration", "hierarchy,curve"], capsys)
    assert status == 0, err
    assert "significantly miscalibrated" in out and "(Eavg)" in out and "expected calibration error" not in out
    status, out, err = run([*base, "--calibration", "table", "--bins", "5"], capsys)
    assert status == 0 and "(expected calibration error)" in out and "(Eavg)" not in out
    three = ["report", str(files / "three.csv"), "--truth", "y", "--proba", "a,b,c", "--brief", "--bootstrap", "200"]
    status, out, err = run([*three, "--calibration-class", "b"], capsys)
    assert status == 0, err
    assert "For class 'b', predicted and observed" in out and "the probabilities of class 'b' are" in out
    assert len(out.splitlines()) <= 40
