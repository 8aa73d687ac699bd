"""Friedman's test, Iman-Davenport's F and the Nemenyi critical difference (Demšar 2006), and ``assay friedman``.

Oracles, with their sources:

* Demšar (2006), JMLR 7:1-30, Section 3.2.4 and Table 6: the AUC of four C4.5 variants on 14 data
  sets. The paper's average ranks are 3.143, 2.000, 2.893, 1.964, chi2_F = 9.28, F_F = 3.69, and
  CD = 1.25 at alpha = 0.05 (q = 2.569) and 1.12 at alpha = 0.10 (q = 2.291), with C4.5 worse than
  C4.5+m and C4.5+m+cf at 0.10 and no pair different at 0.05 (Figure 1). The printed AUCs are
  rounded to three decimals: on "voting" C4.5+cf and C4.5+m+cf both print 0.975 while the paper's
  ranks put C4.5+cf ahead, so the paper's ranks come back when that tie is broken as the paper did
  (Demšar computes chi2_F without the correction for ties). Tolerance: the paper's 2-3 decimals.
* Demšar's Table 5(a), q_0.05 for k = 2..10, printed to 3 decimals.
* scipy.stats.friedmanchisquare (with its correction for ties) to 1e-10.
"""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import friedmanchisquare

import assay
from assay.cli import main
from assay.errors import InvalidInput
from assay.inference.friedman import friedman_nemenyi, nemenyi_q
from assay.inference.multiple import bonferroni, holm

MODELS = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
DATASETS = ["adult (sample)", "breast cancer", "breast cancer wisconsin", "cmc", "ionosphere", "iris",
            "liver disorders", "lung cancer", "lymphography", "mushroom", "primary tumor", "rheum", "voting", "wine"]
AUC = np.array([
    [0.763, 0.768, 0.771, 0.798], [0.599, 0.591, 0.590, 0.569], [0.954, 0.971, 0.968, 0.967],
    [0.628, 0.661, 0.654, 0.657], [0.882, 0.888, 0.886, 0.898], [0.936, 0.931, 0.916, 0.931],
    [0.661, 0.668, 0.609, 0.685], [0.583, 0.583, 0.563, 0.625], [0.775, 0.838, 0.866, 0.875],
    [1.000, 1.000, 1.000, 1.000], [0.940, 0.962, 0.965, 0.962], [0.619, 0.666, 0.614, 0.669],
    [0.972, 0.981, 0.975, 0.975], [0.957, 0.978, 0.946, 0.970],
])
"""Demšar (2006), Table 6."""


def paper_table():
    """Table 6 with the voting tie broken as the paper's ranks break it (C4.5+cf ahead of C4.5+m+cf)."""
    table = AUC.copy()
    table[DATASETS.index("voting")] = [0.972, 0.981, 0.9751, 0.9749]
    return table


# ---------------------------------------------------------------- Demšar's worked example


def test_demsar_table_6_ranks_statistics_and_critical_difference():
    r = friedman_nemenyi(paper_table(), models=MODELS, datasets=DATASETS, tie_correction=False)
    assert r.average_ranks == pytest.approx([3.143, 2.000, 2.893, 1.964], abs=5e-4)
    assert r.statistic == pytest.approx(9.28, abs=5e-3)
    assert r.f_statistic == pytest.approx(3.69, abs=5e-3)
    assert r.q_alpha == pytest.approx(2.569, abs=5e-4)
    assert r.critical_difference == pytest.approx(1.25, abs=5e-3)
    # "the critical value of F(3, 39) for alpha = 0.05 is 2.85, so we reject the null hypothesis"
    assert r.significant()
    # at 0.05 no two models differ: one clique holds them all
    assert r.different_pairs() == []
    assert r.cliques == (("C4.5+m+cf", "C4.5+m", "C4.5+cf", "C4.5"),)


def test_demsar_figure_1_at_ten_percent():
    r = friedman_nemenyi(paper_table(), models=MODELS, tie_correction=False, confidence=0.90)
    assert r.q_alpha == pytest.approx(2.291, abs=5e-4)
    assert r.critical_difference == pytest.approx(1.12, abs=5e-3)
    assert {(p.first, p.second) for p in r.different_pairs()} == {("C4.5+m", "C4.5"), ("C4.5+m+cf", "C4.5")}
    assert r.cliques == (("C4.5+m+cf", "C4.5+m", "C4.5+cf"), ("C4.5+cf", "C4.5"))


def test_printed_table_matches_scipy_and_its_ranks():
    r = assay.friedman(AUC, models=MODELS, datasets=DATASETS)
    expected = friedmanchisquare(*AUC.T)
    assert r.statistic == pytest.approx(expected.statistic, abs=1e-10)
    assert r.pvalue == pytest.approx(expected.pvalue, abs=1e-10)
    # the printed (rounded) table ties C4.5+cf and C4.5+m+cf on voting: half a rank moves over 14 data sets
    assert r.average_ranks == pytest.approx([3.143, 2.000, 2.929, 1.929], abs=5e-4)


@pytest.mark.parametrize("k, q", list(zip(range(2, 11), [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102,
                                                         3.164], strict=True)))
def test_nemenyi_q_matches_demsar_table_5(k, q):
    assert nemenyi_q(k, 0.95) == pytest.approx(q, abs=1e-3)


# ---------------------------------------------------------------- properties


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 12), st.integers(2, 7), st.integers(0, 2**32 - 1))
def test_statistic_matches_scipy_on_random_tables(n, k, seed):
    table = np.random.default_rng(seed).normal(size=(n, k))
    r = friedman_nemenyi(table)
    expected = friedmanchisquare(*table.T) if k >= 3 else None
    if expected is not None:
        assert r.statistic == pytest.approx(expected.statistic, abs=1e-10)
        assert r.pvalue == pytest.approx(expected.pvalue, abs=1e-10)
    assert r.average_ranks.sum() == pytest.approx(k * (k + 1) / 2)
    assert r.ranks.sum(axis=1) == pytest.approx(np.full(n, k * (k + 1) / 2))
    # lower-is-better on the negated table is the same ranking
    flipped = friedman_nemenyi(-table, better="lower")
    assert flipped.average_ranks == pytest.approx(r.average_ranks)
    # every significant pair lies outside every clique
    for p in r.different_pairs():
        assert not any(p.first in c and p.second in c for c in r.cliques)
        assert p.pvalue < 0.05
    json.dumps(r.to_dict(), allow_nan=False)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 10), st.integers(3, 6), st.integers(0, 2**32 - 1))
def test_statistic_with_ties_matches_scipy(n, k, seed):
    table = np.random.default_rng(seed).integers(0, 3, size=(n, k)).astype(float)
    if np.all(table == table[:, :1]):
        return  # every row tied: scipy divides by zero; assay says why (test below)
    assert friedman_nemenyi(table).statistic == pytest.approx(friedmanchisquare(*table.T).statistic, abs=1e-10)


def test_critical_difference_shrinks_with_more_data_sets_and_less_confidence():
    rng = np.random.default_rng(0)
    a = friedman_nemenyi(rng.normal(size=(10, 5)))
    b = friedman_nemenyi(rng.normal(size=(40, 5)))
    assert b.critical_difference < a.critical_difference
    assert friedman_nemenyi(rng.normal(size=(10, 5)), confidence=0.9).critical_difference < a.critical_difference


def test_all_ties_is_undefined_with_a_reason():
    r = friedman_nemenyi(np.ones((4, 3)))
    assert np.isnan(r.statistic) and r.note
    d = r.to_dict()
    assert d["friedman"]["statistic"] is None and "same score" in d["verdict"]
    assert friedman_nemenyi(np.ones((4, 3)), tie_correction=False).statistic == 0.0


def test_perfect_agreement_gives_an_infinite_f():
    r = friedman_nemenyi([[3, 2, 1]] * 5)
    assert r.f_statistic == float("inf") and r.f_pvalue == 0.0
    assert json.loads(json.dumps(assay.FriedmanResult.to_dict(r)))["iman_davenport"]["statistic"] is None


# ---------------------------------------------------------------- the Python API


def test_friedman_takes_a_dataframe_a_dict_or_an_array():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(AUC, columns=MODELS, index=DATASETS)
    from_frame = assay.friedman(frame)
    from_dict = assay.friedman({m: AUC[:, j] for j, m in enumerate(MODELS)}, datasets=DATASETS)
    from_array = assay.friedman(AUC, models=MODELS, datasets=DATASETS)
    for r in (from_frame, from_dict, from_array):
        assert r.models == tuple(MODELS) and r.datasets == tuple(DATASETS)
        assert r.statistic == pytest.approx(from_array.statistic)


@pytest.mark.parametrize("table, kwargs, match", [
    ([[0.9, 0.8, 0.7]], {}, "at least 2 data sets"),
    ([[0.9], [0.8]], {}, "at least 2 models"),
    ([[0.9, np.nan], [0.8, 0.7]], {}, "missing"),
    ([[0.9, 0.8], [0.8, 0.7]], {"models": ["a"]}, "expected 2 names"),
    ([[0.9, 0.8], [0.8, 0.7]], {"models": ["a", "a"]}, "given twice"),
    ([[0.9, 0.8], [0.8, 0.7]], {"better": "up"}, "higher"),
    ([[0.9, 0.8], [0.8, 0.7]], {"confidence": 1.5}, "between 0 and 1"),
])
def test_bad_input(table, kwargs, match):
    with pytest.raises(InvalidInput, match=match):
        assay.friedman(table, **kwargs)


def test_plot_critical_difference_draws_on_an_axes():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    r = assay.friedman(AUC, models=MODELS)
    ax = Figure().add_subplot()
    assert assay.plot_critical_difference(r, ax=ax) is ax
    texts = {t.get_text() for t in ax.texts}
    assert any(t.startswith("C4.5+m+cf") for t in texts) and any(t.startswith("CD = ") for t in texts)
    with pytest.raises(InvalidInput):
        assay.plot_critical_difference(object(), ax=ax)


# ---------------------------------------------------------------- Bonferroni beside Holm


def test_bonferroni_against_statsmodels_values():
    # statsmodels multipletests([0.01, 0.04, 0.03, 0.5], method="bonferroni"): k p capped at 1
    assert bonferroni([0.01, 0.04, 0.03, 0.5]).tolist() == pytest.approx([0.04, 0.16, 0.12, 1.0])
    assert all(b >= h for b, h in zip(bonferroni([0.01, 0.04, 0.03]), holm([0.01, 0.04, 0.03]), strict=True))


# ---------------------------------------------------------------- the command line


def write_table(tmp_path, rows=None, header=None):
    header = header or ["dataset", *MODELS]
    rows = rows if rows is not None else [[d, *map(str, AUC[i])] for i, d in enumerate(DATASETS)]
    path = tmp_path / "auc.csv"
    path.write_text("\n".join(",".join(r) for r in [header, *rows]) + "\n")
    return str(path)


def run(argv, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_text(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    status, out, err = run(["friedman", write_table(tmp_path), "--confidence", "0.9"], capsys)
    assert status == 0, err
    for words in ("average rank", "Friedman chi-squared", "Iman-Davenport F", "CD = 1.12", "C4.5+m+cf (1.93)",
                  "━", "ranks better than C4.5", "Significantly different pairs"):
        assert words in out
    diagram = out[out.index("Critical-difference diagram"):].splitlines()[1:8]
    assert all(len(line) <= 80 for line in diagram)


def test_cli_json_markdown_output_and_plots(tmp_path, capsys):
    table = write_table(tmp_path)
    status, out, err = run(["friedman", table, "--format", "json"], capsys)
    assert status == 0, err
    d = json.loads(out)
    assert d["friedman"]["statistic"] == pytest.approx(friedmanchisquare(*AUC.T).statistic, abs=1e-10)
    assert d["nemenyi"]["critical_difference"] == pytest.approx(1.2536, abs=1e-4)
    assert d["better"] == "higher" and d["average_ranks"]["C4.5"] == pytest.approx(3.143, abs=5e-4)
    out_path = tmp_path / "r.md"
    status, out, err = run(["friedman", table, "--format", "markdown", "-o", str(out_path),
                            "--plots", str(tmp_path / "figs")], capsys)
    assert status == 0, err
    assert out == ""
    assert "```" in out_path.read_text() and "| Iman-Davenport F |" in out_path.read_text()
    assert sorted(p.name for p in (tmp_path / "figs").iterdir()) == ["critical-difference.png",
                                                                     "critical-difference.svg"]


def test_cli_lower_is_better_reverses_the_ranks(tmp_path, capsys):
    rows = [[d, *map(str, 1 - AUC[i])] for i, d in enumerate(DATASETS)]
    status, out, err = run(["friedman", write_table(tmp_path, rows), "--lower-is-better", "--format", "json"], capsys)
    assert status == 0, err
    assert json.loads(out)["average_ranks"]["C4.5"] == pytest.approx(3.143, abs=5e-4)


@pytest.mark.parametrize("rows, header, match", [
    ([["a", "0.9", "high"], ["b", "0.8", "0.7"]], ["dataset", "m1", "m2"],
     "column 'm2' row 1 (data set 'a'): 'high' is not a number"),
    ([["a", "0.9", ""], ["b", "0.8", "0.7"]], ["dataset", "m1", "m2"], "column 'm2' row 1 (data set 'a'): the score is missing"),
    ([["a", "0.9", "0.8"]], ["dataset", "m1", "m2"], "at least 2 data sets"),
    ([["a", "0.9"], ["b", "0.8"]], ["dataset", "m1"], "at least 2 columns of models"),
])
def test_cli_bad_tables_exit_2_with_one_line(tmp_path, capsys, rows, header, match):
    out_path = tmp_path / "out.txt"
    status, out, err = run(["friedman", write_table(tmp_path, rows, header), "-o", str(out_path)], capsys)
    assert status == 2
    assert match in err and err.count("\n") == 1 and out == ""
    assert not out_path.exists()


def test_html_page_and_validate_over_the_parts(tmp_path, capsys):
    from assay.cli import main

    table = tmp_path / "t.csv"
    table.write_text("dataset,a,b,c\nd1,0.7,0.8,0.9\nd2,0.6,0.65,0.7\nd3,0.9,0.85,0.95\nd4,0.5,0.55,0.6\n")
    page = tmp_path / "f.html"
    status = main(["friedman", str(table), "--html", str(page)])
    out, err = capsys.readouterr()
    assert status == 0, err
    html = page.read_text()
    assert '<figure class="cd"><svg' in html and "Iman-Davenport" in html
    import assay

    v = assay.validate(dataset="iris", models=["decision-tree", "naive-bayes", "knn"], folds=5, bootstrap=200)
    d = v.to_dict()["friedman"]
    assert d["n_models"] == 3 and d["n_datasets"] == 5 and len(d["average_ranks"]) == 3
    assert any("not independent" in note for note in v.notes)
    from assay.report.html import render_html

    assert '<figure class="cd"><svg' in render_html(v)


def test_validate_several_files_ranks_the_models_over_them(tmp_path, capsys):
    import json

    from sklearn.datasets import load_iris, load_wine

    from assay.cli import main

    paths = []
    for name, load in (("iris", load_iris), ("wine", load_wine)):
        path = tmp_path / f"{name}.csv"
        load(as_frame=True).frame.to_csv(path, index=False)
        paths.append(str(path))
    status = main(["validate", *paths, "--dataset", "breast-cancer", "--target", "target", "--model", "knn",
                   "--model", "naive-bayes", "--model", "decision-tree", "--folds", "3", "--bootstrap", "200",
                   "--format", "json"])
    out, err = capsys.readouterr()
    assert status == 0, err
    d = json.loads(out)
    assert set(d["datasets"]) == {"breast-cancer", *paths} and d["friedman"]["n_datasets"] == 3
    status = main(["validate", *paths, "--model", "knn", "--folds", "3"])
    out, err = capsys.readouterr()
    assert status == 2 and "--target" in err


# ---------------------------------------------------------------------------------------------------
# Many models (issue 22.2): the Nemenyi p-values without a call per pair, and a limit on the models.
# Oracle: scipy.stats.studentized_range.sf (1 minus its cdf, integrated to 1e-11 absolute), per pair;
# and for k = 2 the closed form P(R >= q) = 2 Phi(-q / sqrt 2).


def _separated_scores(n, k, seed):
    rng = np.random.default_rng(seed)
    return np.arange(k)[None, :] * 0.01 + rng.normal(0.0, 0.02, (n, k))


@pytest.mark.parametrize("n, k, seed", [(14, 4, 0), (6, 12, 1), (30, 60, 2), (3, 150, 3)])
def test_nemenyi_pvalues_match_scipy_per_pair(n, k, seed, monkeypatch):
    """(30, 60) and (3, 150) have more distinct rank differences than table nodes: the interpolated path."""
    from scipy.stats import studentized_range

    table = _separated_scores(n, k, seed)
    scale = np.sqrt(k * (k + 1) / (6.0 * n))
    expected = {}
    r = friedman_nemenyi(table)
    pairs = r.pairs if len(r.pairs) <= 400 else r.pairs[:: len(r.pairs) // 400]
    for p in pairs:
        q = p.rank_difference / scale * np.sqrt(2.0)
        expected[p.first, p.second] = float(studentized_range.sf(q, k, np.inf)) if p.rank_difference > 0 else 1.0
    for p in pairs:
        assert p.pvalue == pytest.approx(expected[p.first, p.second], abs=1e-8), (p.first, p.second)
        assert p.significant == (p.rank_difference > r.critical_difference)


def test_nemenyi_makes_no_call_per_pair(monkeypatch):
    """Before: one studentized_range.sf call per pair, 27 s for 500 models."""
    import scipy.stats

    def refuse(*args, **kwargs):
        raise AssertionError("studentized_range.sf called")

    monkeypatch.setattr(scipy.stats.studentized_range, "sf", refuse)
    r = friedman_nemenyi(_separated_scores(5, 30, 4))
    assert len(r.pairs) == 30 * 29 // 2 and r.different_pairs()


@pytest.mark.parametrize("k", [2, 3, 10, 200, 1000])
def test_studentized_range_sf_table_is_within_1e_8_of_the_direct_integral(k):
    from assay.inference.distributions import _range_sf_integral, studentized_range_sf

    q = np.linspace(0.003, 45.0, 4001)  # more points than nodes: the table
    direct = _range_sf_integral(q[::20], k)
    tabled = studentized_range_sf(q, k)[::20]
    assert np.all(np.abs(tabled - direct) <= 1e-8 * direct + 1e-300)
    tail = studentized_range_sf(q, k)
    assert np.all(np.diff(tail) <= 4e-16 * tail[1:])  # decreasing, to rounding


def test_studentized_range_sf_keeps_small_tails():
    """k = 2: the range of two normals is |X - Y|, P(R >= q) = 2 Phi(-q/sqrt 2), to 1e-11 relative where
    SciPy's 1 - cdf gives 0 past about 1e-16."""
    from scipy.stats import norm

    from assay.inference.distributions import studentized_range_sf

    q = np.array([0.5, 3.0, 12.0, 25.0, 50.0])
    assert studentized_range_sf(q, 2) == pytest.approx(2.0 * norm.sf(q / np.sqrt(2.0)), rel=1e-11)
    assert studentized_range_sf(np.array([0.0, -1.0, 60.0, np.inf]), 5).tolist() == [1.0, 1.0, 0.0, 0.0]


def test_more_models_than_the_limit_refused_quickly(tmp_path):
    """Before: no limit, 501 models ran the Nemenyi test on 125,250 pairs (a SciPy call each) and answered."""
    import subprocess
    import sys

    from assay.limits import MAX_MODELS

    k = MAX_MODELS + 1
    path = tmp_path / "many.csv"
    path.write_text("dataset," + ",".join(f"m{j}" for j in range(k)) + "\n"
                    + "".join(f"d{i}," + ",".join(f"{(j * 7 + i) % 13 / 13:.3f}" for j in range(k)) + "\n"
                              for i in range(3)))
    done = subprocess.run([sys.executable, "-m", "assay", "friedman", str(path)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and f"at most {MAX_MODELS:,} models" in done.stderr
    with pytest.raises(InvalidInput, match="at most"):
        assay.friedman(np.zeros((2, k)))


def test_text_lists_at_most_a_hundred_pairs_and_json_every_pair(tmp_path, capsys):
    from assay.report.friedman import PAIRS_SHOWN

    k = 40
    table = _separated_scores(12, k, 5)
    rows = [[f"d{i}", *(f"{v:.5f}" for v in table[i])] for i in range(len(table))]
    path = write_table(tmp_path, rows, ["dataset", *(f"m{j}" for j in range(k))])
    status, out, err = run(["friedman", path, "--format", "json"], capsys)
    assert status == 0, err
    pairs = json.loads(out)["nemenyi"]["pairs"]
    different = sum(p["significant"] for p in pairs)
    assert len(pairs) == k * (k - 1) // 2 and different > PAIRS_SHOWN
    status, out, err = run(["friedman", path], capsys)
    assert status == 0, err
    assert f"and {different - PAIRS_SHOWN:,} more of the {different:,} pairs" in out
