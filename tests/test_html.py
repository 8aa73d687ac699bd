"""The HTML report without a browser: escaping, self-containment, the thinning bound, the explorer's data,
atomic writing and the command line. What only a browser can show lives in test_html_browser.py."""

import html as html_module
import itertools
import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import assay
from assay.cli import main
from assay.report.html import EXPLORER_THRESHOLDS, embedded_json, render_html
from assay.report.svg import Chart, nice_ticks
from assay.report.thinning import thin

DATA = Path(__file__).parent / "data"
XSS = ("<script>alert(1)</script>", '"><img src=x onerror=alert(1)>')


def _data(page: str) -> dict:
    match = re.search(r'<script type="application/json" id="assay-data">(.*?)</script>', page, re.DOTALL)
    assert match
    return json.loads(match.group(1))


def _scores(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return y, np.clip(rng.normal(0.35 + 0.3 * y, 0.2), 0, 1).round(4)


# ---------------------------------------------------------------------------------------------------------------------
# safety


def test_hostile_labels_render_as_text():
    y, s = _scores(300)
    truth = np.where(y == 1, XSS[0], XSS[1])
    ev = assay.evaluate(truth, y_score=s, positive=XSS[0], threshold=0.5)
    page = render_html(ev)
    for bad in XSS:
        assert bad not in page  # neither raw in markup nor raw in the embedded JSON
    assert "<img" not in page
    assert page.count("<script") == 2  # the data island and the explorer, nothing else
    assert html_module.escape(XSS[0]) in page
    data = _data(page)
    assert {data["explorers"][0]["negative"], data["explorers"][0]["positive"]} == set(XSS)


@settings(max_examples=60, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
                    max_leaves=12))
def test_embedded_json_round_trips_and_cannot_close_the_script(value):
    text = str(embedded_json(value))
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == value


def test_the_page_asks_for_nothing_outside_itself():
    y, s = _scores(500)
    page = render_html(assay.evaluate(y, y_score=s))
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    # the only URL is the SVG namespace, which is a name and never fetched
    assert set(re.findall(r"https?://[^\s\"'<>)]+", page)) <= {"http://www.w3.org/2000/svg"}
    assert not re.search(r"""(src|href)\s*=\s*["']?(?!#|data:)""", page)
    assert "@import" not in page and "url(" not in page


# ---------------------------------------------------------------------------------------------------------------------
# pictures: drawn within the bound, numbers exact


def _polyline(page: str, mark_id: str) -> np.ndarray:
    match = re.search(r'<polyline points="([^"]+)"[^>]*id="' + re.escape(mark_id) + '"', page)
    assert match, mark_id
    return np.array([[float(v) for v in p.split(",")] for p in match.group(1).split()])


def _distance_to_polyline(points: np.ndarray, line: np.ndarray) -> np.ndarray:
    best = np.full(len(points), np.inf)
    for a, b in itertools.pairwise(line):
        d = b - a
        length2 = float(d @ d)
        t = np.zeros(len(points)) if length2 == 0 else np.clip((points - a) @ d / length2, 0, 1)
        best = np.minimum(best, np.hypot(*(points - (a + t[:, None] * d)).T))
    return best


def test_drawn_roc_curve_stays_within_half_a_pixel_of_the_exact_curve():
    y, s = _scores(20_000, seed=3)
    ev = assay.evaluate(y, y_score=np.round(s + np.random.default_rng(1).normal(0, 1e-3, len(s)), 6), threshold=0.5)
    page = render_html(ev)
    drawn = _polyline(page, "roc-0-curve-1")
    chart = Chart("", "", "")  # the same geometry as the report's ROC chart
    roc = ev.ranking.roc()
    exact = np.column_stack([chart.px(roc["fpr"]), chart.py(roc["tpr"])])
    assert len(drawn) < len(exact) / 5  # it was thinned
    # half a pixel from thinning, plus the rounding of coordinates to 0.01 px
    assert _distance_to_polyline(exact, drawn).max() <= 0.5 + 0.01


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=3, max_size=300), st.floats(1e-4, 0.1))
def test_thinning_keeps_every_point_within_the_tolerance(ys, tolerance):
    y = np.maximum.accumulate(np.array(ys))
    x = np.linspace(0, 1, len(y))
    keep = thin(x, y, tolerance)
    assert keep[0] == 0 and keep[-1] == len(y) - 1 and np.all(np.diff(keep) > 0)
    drawn = np.column_stack([x[keep], y[keep]])
    assert _distance_to_polyline(np.column_stack([x, y]), drawn).max() <= tolerance * (1 + 1e-9)


def test_a_million_rows_make_a_page_of_a_few_megabytes():
    y, s = _scores(1_000_000, seed=5)
    s = s + np.random.default_rng(2).random(len(s)) * 1e-4  # ~10^6 distinct thresholds
    ev = assay.evaluate(y, y_score=np.clip(s, 0, 1), bootstrap=200)
    page = render_html(ev)
    assert len(page.encode()) < 3_000_000
    explorer = _data(page)["explorers"][0]
    assert not explorer["exact"] and len(explorer["thresholds"]) <= EXPLORER_THRESHOLDS + 10


@pytest.mark.parametrize("n, exact", [(1500, True), (8000, False)])
def test_explorer_rows_are_the_exact_counts_at_their_thresholds(n, exact):
    y, s = _scores(n, seed=7)
    ev = assay.evaluate(np.where(y == 1, "sick", "well"), y_score=s, positive="sick")
    explorer = _data(render_html(ev))["explorers"][0]
    thresholds = np.array([np.inf if t is None else t for t in explorer["thresholds"]])
    assert explorer["exact"] == exact and np.isinf(thresholds[-1])
    assert exact or ev.threshold in thresholds  # the report's own threshold is always held
    for i in np.random.default_rng(0).choice(len(thresholds) - 1, 25, replace=False):
        t = thresholds[i]
        predicted = s >= t
        assert explorer["rows"]["tp"][i] == int(np.sum(predicted & (y == 1)))
        assert explorer["rows"]["fp"][i] == int(np.sum(predicted & (y == 0)))
        assert explorer["rows"]["fn"][i] == int(np.sum(~predicted & (y == 1)))
        assert explorer["rows"]["tn"][i] == int(np.sum(~predicted & (y == 0)))
    assert explorer["rows"]["tp"][-1] == 0 and explorer["rows"]["fp"][-1] == 0  # nothing is >= inf
    # the explorer starts at the report's own threshold
    start = explorer["start"]
    assert thresholds[start] >= ev.threshold and (start == 0 or thresholds[start - 1] < ev.threshold)
    # and shows it as the report gives it (0.5), not as the score it lands on
    assert explorer["given"] == {"index": start, "text": repr(float(ev.threshold))}


def test_undefined_metrics_are_null_not_zero_in_the_explorer():
    ev = assay.evaluate(np.array([0, 0, 1, 1]), y_score=np.array([0.1, 0.2, 0.3, 0.4]))
    explorer = _data(render_html(ev))["explorers"][0]
    # at threshold +inf nothing is predicted positive: precision is 0/0
    assert explorer["rows"]["precision"][-1] is None


@pytest.mark.parametrize("lo, hi", [(0, 1), (0, 0.137), (1.79e-7, 1), (-3, 7), (0, 2500), (0.25, 0.2501)])
def test_axis_ticks_are_round_and_inside_the_range(lo, hi):
    ticks = nice_ticks(lo, hi)
    assert 3 <= len(ticks) <= 7
    assert ticks.min() >= lo - 1e-12 and ticks.max() <= hi + 1e-12
    steps = np.diff(ticks)
    assert np.allclose(steps, steps[0])
    mantissa = steps[0] / 10 ** np.floor(np.log10(steps[0]))
    assert any(np.isclose(mantissa, m) for m in (1, 2, 2.5, 5))


def test_validation_and_comparison_pages():
    v = assay.validate(dataset="iris", models=["naive-bayes", "decision-tree"], folds=3)
    page = render_html(v)
    assert "Error by fold or round" in page and page.count('class="heatmap"') == 2
    assert "out-of-fold confusion matrix" not in page  # drawn as heat maps, not repeated as tables
    y, s = _scores(400)
    c = assay.compare(y, {"y_score": s}, {"y_score": np.clip(s + 0.2 * np.random.default_rng(0).random(400), 0, 1)},
                      names=("old", "new"))
    page = render_html(c)
    assert page.count('id="roc-models-curve-') == 2 and "old (AUC" in page and "new (AUC" in page
    assert "In words" in page and "significant" in page


def test_the_page_shows_each_note_once():
    y, s = _scores(300)
    ev = assay.evaluate(y, y_score=s)
    page = render_html(ev)
    for note in ev.notes:
        assert page.count(html_module.escape(note, quote=False).replace("'", "&#39;")) == 1
    assert page.count("<h2>Confusion matrix</h2>") == 1


# ---------------------------------------------------------------------------------------------------------------------
# the command line


@pytest.fixture
def run_cli(capsys):
    def run(argv):
        code = main(argv)
        out, err = capsys.readouterr()
        return code, out, err
    return run


def _csv(tmp_path: Path) -> Path:
    y, s = _scores(400)
    path = tmp_path / "preds.csv"
    path.write_text("y,p\n" + "".join(f"{a},{b}\n" for a, b in zip(y, s, strict=True)))
    return path


def test_report_html_from_the_command_line(tmp_path, run_cli):
    out = tmp_path / "r.html"
    code, _, err = run_cli(["report", str(_csv(tmp_path)), "--truth", "y", "--score", "p", "--html", str(out)])
    assert code == 0, err
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and "Threshold explorer" in page


def test_validate_and_compare_html_from_the_command_line(tmp_path, run_cli):
    out = tmp_path / "v.html"
    code, _, err = run_cli(["validate", "--dataset", "wine", "--model", "naive-bayes", "--folds", "3",
                            "--html", str(out)])
    assert code == 0, err
    assert "assay validate" in out.read_text()
    a = _csv(tmp_path)
    out = tmp_path / "c.html"
    code, _, err = run_cli(["compare", str(a), str(a), "--truth", "y", "--score", "p", "--html", str(out)])
    assert code == 0, err
    assert "assay compare" in out.read_text()


def test_html_errors_are_one_line_with_status_2(tmp_path, run_cli):
    code, _, err = run_cli(["report", str(_csv(tmp_path)), "--truth", "y", "--score", "p",
                            "--html", str(tmp_path / "missing" / "r.html")])
    assert code == 2 and err.count("\n") <= 1 and "--html" in err and "Traceback" not in err
    reg = tmp_path / "reg.csv"
    reg.write_text("y,yhat\n1.5,1.2\n2.5,2.7\n3.1,2.9\n")
    code, _, err = run_cli(["report", str(reg), "--truth", "y", "--pred", "yhat", "--html",
                            str(tmp_path / "missing" / "x.html")])  # numeric predictions have an HTML report too
    assert code == 2 and err.count("\n") <= 1 and "--html" in err and "Traceback" not in err


def test_an_existing_report_is_replaced_only_when_the_new_one_is_complete(tmp_path, run_cli, monkeypatch):
    out = tmp_path / "r.html"
    out.write_text("the old report")
    from assay.report import html

    def broken(result):
        raise RuntimeError("rendering failed half way")

    monkeypatch.setattr(html, "render_html", broken)
    # a bug is one line and exit status 1 now, not a traceback (the reliability issue)
    assert main(["report", str(_csv(tmp_path)), "--truth", "y", "--score", "p", "--html", str(out)]) == 1
    assert out.read_text() == "the old report"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".assay-")] == []


# ---------------------------------------------------------------------------------------------------------------------
# methods on the results, the notebook view and --plots


def test_plot_methods_draw_the_results_own_curves_on_the_given_axes():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    y, s = _scores(300)
    ev = assay.evaluate(y, y_score=s)
    fig, axes = plt.subplots(2, 3)
    try:
        assert ev.plot_roc(axes[0, 0]) is axes[0, 0]
        roc = ev.ranking.roc()
        drawn = [line for line in axes[0, 0].get_lines() if len(line.get_xdata()) == len(roc["fpr"])]
        assert any(np.array_equal(line.get_xdata(), roc["fpr"]) and np.array_equal(line.get_ydata(), roc["tpr"])
                   for line in drawn)
        assert ev.ranking.plot_pr(axes[0, 1]) is axes[0, 1]
        assert ev.plot_lift(axes[0, 2], kind="lift") is axes[0, 2]
        assert ev.plot_calibration(axes[1, 0]) is axes[1, 0]
        assert ev.plot_confusion(axes[1, 1]) is axes[1, 1]
        assert ev.plot_cost(axes[1, 2]) is axes[1, 2]
    finally:
        plt.close(fig)
    v = assay.validate(dataset="iris", models=["naive-bayes", "decision-tree"], folds=3)
    fig, ax = plt.subplots()
    try:
        assert v.plot_folds(ax) is ax
        with pytest.raises(assay.InvalidInput):
            v.plot_roc(ax)  # three classes: no ROC curve to draw
    finally:
        plt.close(fig)


def test_notebook_view_is_a_scoped_fragment_without_scripts():
    y, s = _scores(300)
    truth = np.where(y == 1, XSS[0], XSS[1])
    ev = assay.evaluate(truth, y_score=s, positive=XSS[0])
    for result in (ev, ev.ranking):
        fragment = result._repr_html_()
        assert fragment.startswith('<div class="assay-fragment">') and "<script" not in fragment
        assert XSS[0] not in fragment and XSS[1] not in fragment and "<img" not in fragment
        style = re.search(r"<style>(.*?)</style>", fragment, re.S).group(1)
        selectors = [rule.split("{")[0].strip() for rule in style.split("}") if "{" in rule]
        assert selectors and all(part.strip().startswith(".assay-fragment") for sel in selectors
                                 for part in sel.split(","))
    assert 'class="heatmap"' in ev._repr_html_() and "ROC curve" in ev.ranking._repr_html_()
    v = assay.validate(dataset="wine", models=["naive-bayes"], folds=3)
    assert "Error by fold or round" in v._repr_html_()


def test_plots_directory_from_the_command_line(tmp_path, run_cli):
    out = tmp_path / "plots"
    code, _, err = run_cli(["report", str(_csv(tmp_path)), "--truth", "y", "--score", "p", "--plots", str(out)])
    assert code == 0, err
    names = sorted(p.name for p in out.iterdir())
    for plot in ("roc", "pr", "gains", "lift", "calibration", "confusion", "cost"):
        assert f"{plot}.svg" in names and f"{plot}.png" in names
    assert (out / "roc.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "roc.svg").read_text().lstrip().startswith("<?xml")
    code, _, err = run_cli(["report", str(_csv(tmp_path)), "--truth", "y", "--score", "p",
                            "--plots", str(tmp_path / "preds.csv" / "sub")])
    assert code == 2 and "--plots" in err and err.count("\n") == 1


def test_heatmap_shares_of_an_empty_row_or_column_are_undefined_not_zero():
    # class b is neither actual nor predicted: its row and column shares are 0/0
    ev = assay.evaluate_confusion([[5, 0, 1], [0, 0, 0], [2, 0, 3]], labels=["a", "b", "c"])
    shares = re.findall(r'<span class="share">([^<]*)</span>', render_html(ev))
    assert shares[0] == "83.3% · 71.4%"  # 5 of 6 actual a, 5 of 7 predicted a
    assert shares[1] == "0.0% · —" and shares[3] == "— · 0.0%" and shares[4] == "— · —"
