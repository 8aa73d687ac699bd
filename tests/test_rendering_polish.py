"""The renderers' polish (issue 18, item 18; issue 22, item 4): intervals at their estimate's decimals, no
interval claimed where there is none, charts whose titles and labels are not cut or hidden, tests that say
what their statistic is, comparisons that name their models, and ``assay z`` written one way."""

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import assay
from helpers import run_cli as run
from assay.report.html import render_html

DATA = Path(__file__).parent / "data"
TWO_CLASS = str(DATA / "two_class_example.csv")


# text and JSON ---------------------------------------------------------------------------------------------------

def test_per_class_and_average_intervals_are_at_the_estimates_decimals(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    status, out, err = run(["report", TWO_CLASS, "--truth", "truth", "--pred", "predicted", "--bootstrap", "200"],
                           capsys)
    assert status == 0, err
    section = out[out.index("Per class and averages"):out.index("Tests")]
    assert not re.search(r"\(\d+–\d+\)", section)  # no whole-percent interval beside a one-decimal estimate
    cells = re.findall(r"\d+\.\d% \((\d+\.\d)–(\d+\.\d)\)", section)
    assert len(cells) == 2 * 4 + 3 * 3  # two classes of four metrics, three averages of three
    recall = assay.evaluate(pd.read_csv(TWO_CLASS)["truth"], pd.read_csv(TWO_CLASS)["predicted"],
                            bootstrap=200).per_class["Class1"]["recall"]
    assert f"{recall.value:.1%} ({recall.ci.low * 100:.1f}–{recall.ci.high * 100:.1f})" in section


@pytest.fixture
def weighted(tmp_path):
    rng = np.random.default_rng(3)
    n = 5746
    y = rng.integers(0, 2, n)
    score = np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1)
    path = tmp_path / "w.csv"
    pd.DataFrame({"y": y, "p": (score > 0.5).astype(int), "s": score, "w": np.full(n, 0.1)}).to_csv(path, index=False)
    return path


def test_weights_that_are_not_counts_claim_no_intervals(weighted, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    for column in (["--pred", "p"], ["--score", "s"]):
        status, out, err = run(["report", str(weighted), "--truth", "y", *column, "--weight", "w"], capsys)
        assert status == 0, err
        assert "confidence intervals" not in out and "95% CI" not in out, out
        assert "no interval: the sample weights are not counts" in out
        assert out.count("no interval: the sample weights are not counts") <= 3  # said under each table, once


def test_the_json_total_of_weights_carries_no_rounding_noise(weighted, capsys):
    status, out, err = run(["report", str(weighted), "--truth", "y", "--pred", "p", "--weight", "w", "--format",
                            "json"], capsys)
    assert status == 0, err
    assert json.loads(out)["n"] == 574.6  # 5,746 weights of 0.1 sum to 574.5999999999974 in floats
    status, out, err = run(["report", TWO_CLASS, "--truth", "truth", "--pred", "predicted", "--format", "json"], capsys)
    assert json.loads(out)["n"] == 500 and '"n": 500,' in out  # a count stays a whole number


def test_z_writes_every_level_alike(capsys):
    status, out, err = run(["z", "--confidence", "0.9"], capsys)
    assert status == 0, err
    row = out.splitlines()[3].split()
    assert row == ["1.6449", "90%", "95%", "5%"]
    status, out, err = run(["z", "--z", "1.53"], capsys)
    assert out.splitlines()[3].split() == ["1.5300", "87.3983%", "93.6992%", "6.3008%"]
    status, out, err = run(["z", "--confidence", "0.999"], capsys)
    assert out.splitlines()[3].split() == ["3.2905", "99.9%", "99.95%", "0.05%"]


# comparisons -----------------------------------------------------------------------------------------------------

@pytest.fixture
def mix3(tmp_path):
    rng = np.random.default_rng(2)
    n = 120
    y = rng.integers(0, 2, n)
    path = tmp_path / "mix3.csv"
    pd.DataFrame({"y": y, "a": np.clip(0.4 * y + 0.6 * rng.random(n), 0, 1),
                  "b": np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1),
                  "c": (2 * y + rng.normal(size=n)) * 3}).to_csv(path, index=False)
    return path


def test_compare_of_probabilities_and_scores_without_a_threshold(mix3, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    status, out, err = run(["compare", str(mix3), "--truth", "y", "--score", "a", "--score", "b", "--score", "c",
                            "--bootstrap", "200"], capsys)
    assert status == 0, err  # was "internal error: KeyError: 'accuracy_difference'"
    rows = {line.split()[0] + line.split()[2]: line.split()[3:] for line in out.splitlines()
            if re.match(r"[abc] vs [abc] ", line)}
    assert rows["ab"][:3] != ["—", "—", "—"] and rows["ac"][:3] == ["—", "—", "—"]
    assert rows["bc"][:3] == ["—", "—", "—"]
    assert "McNemar's test finds the error rates significantly different for a vs b." in out
    assert "every pair" not in out.split("McNemar's test finds")[1].split(".")[0]
    for fmt in ("json", "markdown"):
        status, _, err = run(["compare", str(mix3), "--truth", "y", "--score", "a", "--score", "b", "--score", "c",
                              "--bootstrap", "200", "--format", fmt], capsys)
        assert status == 0, err


def test_mcnemar_says_which_statistic_it_shows(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    rng = np.random.default_rng(7)
    n = 60
    y = rng.integers(0, 2, n)
    path = tmp_path / "pair.csv"
    pd.DataFrame({"y": y, "a": np.where(rng.random(n) < 0.85, y, 1 - y),
                  "b": np.where(rng.random(n) < 0.8, y, 1 - y)}).to_csv(path, index=False)
    status, out, err = run(["compare", str(path), "--truth", "y", "--pred", "a", "--pred", "b", "--bootstrap", "200"],
                           capsys)
    assert status == 0, err
    frame = pd.read_csv(path)
    d = assay.compare(y, frame["a"], frame["b"], names=("a", "b"), bootstrap=200).tests["mcnemar"]
    assert d.method == "exact"  # fewer than 25 discordant pairs
    line = next(line for line in out.splitlines() if line.startswith("McNemar"))
    assert f"b = {d.b} right only by a, c = {d.c} only by b" in line and f"min(b, c) = {min(d.b, d.c)}" in line
    big = tmp_path / "big.csv"
    m = 400
    yy = rng.integers(0, 2, m)
    pd.DataFrame({"y": yy, "a": np.where(rng.random(m) < 0.85, yy, 1 - yy),
                  "b": np.where(rng.random(m) < 0.7, yy, 1 - yy)}).to_csv(big, index=False)
    status, out, err = run(["compare", str(big), "--truth", "y", "--pred", "a", "--pred", "b", "--bootstrap", "200"],
                           capsys)
    line = next(line for line in out.splitlines() if line.startswith("McNemar"))
    assert "X² = " in line and "min(b, c)" not in line


def test_unpaired_compare_names_its_models_and_one_direction(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    rng = np.random.default_rng(5)
    paths = []
    for name, n in (("tree", 150), ("forest", 130)):
        y = rng.integers(0, 2, n)
        s = np.clip(0.4 * y + 0.6 * rng.random(n), 0, 1)
        paths.append(str(tmp_path / f"{name}.csv"))
        pd.DataFrame({"y": y, "s": s}).to_csv(paths[-1], index=False)
    status, out, err = run(["compare", *paths, "--truth", "y", "--score", "s", "--unpaired", "--threshold", "0.5"],
                           capsys)
    assert status == 0, err
    assert "Error rate forest − tree (independent test sets)" in out
    assert "DeLong, unpaired: ROC AUC tree − forest" in out
    assert "every difference is positive when tree does better" in out
    assert "e_B" not in out and "A - B" not in out and "AUC_A" not in out
    assert "forest's minus tree's" in out and "tree's AUC minus forest's" in out


# HTML ------------------------------------------------------------------------------------------------------------

TITLE_CHAR = 7.5
"""The width of a character of a chart title (13 px, bold), in pixels: a generous average."""


def _chart_titles(html):
    """(title, room) for every chart: the title's text and the pixels between its start and the chart's edge."""
    out = []
    for width, body in re.findall(r'<svg class="chart"[^>]*width="(\d+)"[^>]*>(.*?)</svg>', html, re.S):
        x, title = re.search(r'<text x="(\d+)" y="18" font-size="13" font-weight="bold">([^<]*)</text>', body).groups()
        out.append((title, int(width) - int(x)))
    return out


def test_no_chart_title_is_cut(tmp_path):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 200)
    logits = rng.normal(size=(200, 3)) + 2.0 * np.eye(3)[y]
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    several = assay.evaluate(y, y_proba=proba, labels=[0, 1, 2], bootstrap=200)
    frame = pd.read_csv(TWO_CLASS)
    two = assay.evaluate(frame["truth"], y_score=frame["Class1"], bootstrap=200)
    titles = _chart_titles(render_html(several)) + _chart_titles(render_html(two))
    assert any(t.startswith("Precision-recall") for t, _ in titles) and len(titles) >= 6
    for title, room in titles:
        assert len(title) * TITLE_CHAR <= room, title


def test_the_ideal_label_keeps_clear_of_the_chosen_point():
    # 100 negatives, 5 of them above the threshold; 100 positives, 95 above: the point (0.05, 0.95), where the
    # label of the ideal corner was drawn
    y = np.array([0] * 100 + [1] * 100)
    s = np.r_[np.linspace(0.0, 0.45, 95), np.linspace(0.55, 0.6, 5), np.linspace(0.1, 0.45, 5),
              np.linspace(0.5, 1.0, 95)]
    r = assay.evaluate(y, y_score=s, bootstrap=200)
    assert (r.ranking.operating_point.fpr, r.ranking.operating_point.tpr) == (0.05, 0.95)
    html = render_html(r)
    roc = html[html.index('id="roc-0"'):]
    roc = roc[:roc.index("</svg>")]
    x, y_ = map(float, re.search(r'<text x="([\d.]+)" y="([\d.]+)"[^>]*>ideal</text>', roc).groups())
    cx, cy, radius = map(float, re.search(r'<circle cx="([\d.]+)" cy="([\d.]+)" r="([\d.]+)"[^>]*id="roc-0-point"',
                                          roc).groups())
    box = (x, y_ - 10, x + 6 * len("ideal"), y_ + 2)  # a 10 px label, about 6 px a character
    near_x = min(max(cx, box[0]), box[2])
    near_y = min(max(cy, box[1]), box[3])
    assert (cx - near_x) ** 2 + (cy - near_y) ** 2 > radius ** 2  # the point's circle misses the label's box


def test_the_validate_page_heads_the_ranks_once(tmp_path, capsys):
    rng = np.random.default_rng(0)
    n = 60
    x = rng.normal(size=(n, 2))
    path = tmp_path / "tiny.csv"
    pd.DataFrame({"x1": x[:, 0], "x2": x[:, 1], "y": (x[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)}).to_csv(
        path, index=False)
    page = tmp_path / "v.html"
    status, out, err = run(["validate", str(path), "--target", "y", "--model", "zero-r", "--model", "naive-bayes",
                            "--model", "knn", "--folds", "5", "--bootstrap", "200", "--html", str(page)], capsys)
    assert status == 0, err
    html = page.read_text()
    assert len(re.findall(r"<h2>Ranks over the parts", html)) == 1
    heading = html.index("<h2>Ranks over the parts")
    following = html.find("<h2>", heading + 1)
    assert heading < html.index('<figure class="cd">') < (following if following > 0 else len(html))  # its diagram


def test_compare_says_why_an_estimate_has_no_interval(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    y = np.array([0] * 30 + [1] * 30)
    s = np.r_[np.linspace(0.0, 0.4, 30), np.linspace(0.6, 1.0, 30)]  # perfectly separated: AUC 1, no interval
    path = tmp_path / "perfect.csv"
    pd.DataFrame({"y": y, "s": s, "s2": s ** 2}).to_csv(path, index=False)
    status, out, err = run(["compare", str(path), "--truth", "y", "--score", "s", "--score", "s2", "--bootstrap",
                            "200"], capsys)
    assert status == 0, err
    assert "s's ROC AUC and s2's ROC AUC: no interval: the standard error is 0 (the classes are perfectly " \
           "separated)" in out
    assert "s's kappa: no interval: the standard error is 0 (perfect agreement)" in out


def test_a_table_too_wide_for_the_terminal_loses_nothing():
    from assay.report.document import Table
    from assay.report.text import render_blocks_text

    cells = [["Class1", "258", "81.9% (77.0–86.0)", "88.0% (83.4–91.4)", "84.9% (81.9–87.9)"]]
    table = Table(["class", "support", "Precision", "Recall", "F1 score"], cells)
    for width in (80, 40, 24):
        out = render_blocks_text([table], width=width)
        assert max(map(len, out.splitlines())) <= width
        shown = sorted("".join(out.split()).replace("─", ""))
        given = sorted("".join("".join(table.header + cells[0]).split()))
        assert shown == given  # every character is there, folded at worst, none cut off


def test_a_kappa_significantly_below_zero_is_called_worse_than_chance(capsys):
    """A kappa of -0.45 was "significantly better than chance": the z test is two-sided, its verdict now
    follows the estimate's side."""
    import assay

    y = [0] * 50 + [1] * 50
    pred = [1] * 36 + [0] * 14 + [0] * 36 + [1] * 14
    r = assay.evaluate(y, pred)
    kappa = r.tests["kappa"]
    assert kappa.kappa < -0.4 and kappa.pvalue < 0.05
    assert "significantly worse than chance (kappa < 0)" in kappa.verdict(0.95)
    assert "better than chance" not in str(r)
    assert "Kappa < 0" in str(r)
