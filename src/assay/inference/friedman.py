"""Many models over many data sets: Friedman's test, the Nemenyi post-hoc test, the critical difference.

Demšar (2006) recommends, to compare k classifiers over N data sets, ranking the
classifiers on each data set (1 the best; ties share the average of the ranks
they span), averaging the ranks, and testing that every classifier has the same
expected rank with Friedman's statistic

    chi2_F = 12 N / (k (k + 1)) * (sum_j R_j^2 - k (k + 1)^2 / 4),

where R_j is model j's average rank: chi-squared with k - 1 degrees of freedom
under the null hypothesis. Iman & Davenport's

    F_F = (N - 1) chi2_F / (N (k - 1) - chi2_F)

follows an F distribution with k - 1 and (k - 1)(N - 1) degrees of freedom and
is less conservative. When ties occur, chi2_F is divided by
1 - sum(t^3 - t) / (N (k^3 - k)) (t the sizes of the groups of ties), as R's
``friedman.test`` and SciPy's ``friedmanchisquare`` do; ``tie_correction=False``
gives Demšar's formula as printed.

The Nemenyi test then calls two models different when their average ranks differ
by more than the critical difference

    CD = q_alpha sqrt(k (k + 1) / (6 N)),

with q_alpha the studentized range quantile for k groups and infinitely many
degrees of freedom, divided by sqrt(2) (Demšar's Table 5a: 1.960, 2.343, 2.569,
2.728, 2.850, 2.949, 3.031, 3.102, 3.164 for k = 2 ... 10 at alpha = 0.05).

References
----------
J. Demšar (2006), Statistical comparisons of classifiers over multiple data sets,
Journal of Machine Learning Research 7:1-30 (Sections 3.2.2 and 3.2.4, Tables 5
and 6, Figure 1).
R. L. Iman and J. M. Davenport (1980), Approximations of the critical region of
the Friedman statistic, Communications in Statistics A9:571-595.
P. B. Nemenyi (1963), Distribution-free multiple comparisons, PhD thesis,
Princeton University.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from assay.checks import check_confidence
from assay.errors import InvalidInput
from assay.inference.distributions import chi2_sf, f_sf, studentized_range_sf
from assay.inference.estimate import finite_or_none
from assay.inference.testing import format_level, format_pvalue
from assay.limits import MAX_MODELS

__all__ = ["FriedmanResult", "NemenyiPair", "friedman", "friedman_nemenyi", "nemenyi_q", "average_ranks", "Direction"]

Direction = Literal["higher", "lower"]
"""Which scores are better: ``"higher"`` (accuracy, AUC) or ``"lower"`` (error rate, loss)."""

DIRECTIONS: tuple[str, ...] = ("higher", "lower")


def nemenyi_q(k: int, confidence: float = 0.95) -> float:
    """The Nemenyi test's critical value q_alpha for k models.

    The studentized range quantile for k groups and infinite degrees of freedom,
    divided by sqrt(2).

    Examples
    --------
    >>> round(nemenyi_q(4), 3), round(nemenyi_q(10), 3)
    (2.569, 3.164)
    """
    from scipy.stats import studentized_range  # lazy (assay.lazy_imports): scipy.stats takes most of a second

    if k < 2:
        raise InvalidInput(f"needs at least 2 models, got {k}", field="k")
    return float(studentized_range.ppf(confidence, k, np.inf) / np.sqrt(2.0))


def average_ranks(scores: np.ndarray, *, better: Direction = "higher") -> np.ndarray:
    """Ranks per data set (rows), 1 the best, ties given the average of the ranks they span.

    Examples
    --------
    >>> average_ranks(np.array([[0.9, 0.8, 0.8]])).tolist()
    [[1.0, 2.5, 2.5]]
    >>> average_ranks(np.array([[0.1, 0.2, 0.3]]), better="lower").tolist()
    [[1.0, 2.0, 3.0]]
    """
    from scipy.stats import rankdata  # lazy (assay.lazy_imports): scipy.stats takes most of a second

    values = -scores if better == "higher" else scores
    return rankdata(values, axis=1, method="average")


@dataclass(frozen=True)
class NemenyiPair:
    """Two models' average ranks compared: the first is the better ranked (smaller average rank)."""

    first: str
    second: str
    rank_difference: float
    pvalue: float  # Nemenyi's p-value: the studentized range's tail at diff / sqrt(k(k+1)/(6N)) * sqrt(2)
    significant: bool  # rank_difference > critical difference

    def to_dict(self) -> dict[str, Any]:
        return {"models": [self.first, self.second], "rank_difference": self.rank_difference,
                "pvalue": finite_or_none(self.pvalue), "significant": self.significant}


@dataclass(frozen=True)
class FriedmanResult:
    """Friedman's test, Iman-Davenport's F and Nemenyi's critical difference over N data sets and k models.

    ``ranks`` is the N x k table of ranks (1 the best), ``average_ranks`` their column means, in the
    order of ``models``. ``statistic`` is Friedman's chi-squared (with k - 1 degrees of freedom),
    ``f_statistic`` Iman and Davenport's F (k - 1 and (k - 1)(N - 1) degrees of freedom).
    ``critical_difference`` = ``q_alpha`` sqrt(k(k+1)/(6N)) at ``confidence``; ``pairs`` every pair of
    models, ``cliques`` the maximal groups of models (best ranked first) whose average ranks all lie
    within the critical difference of one another, drawn as bars on the diagram.
    """

    models: tuple[str, ...]
    datasets: tuple[str, ...]
    scores: np.ndarray
    ranks: np.ndarray
    average_ranks: np.ndarray
    better: Direction
    statistic: float
    pvalue: float
    f_statistic: float
    f_pvalue: float
    tie_correction: bool
    confidence: float
    q_alpha: float
    critical_difference: float
    pairs: tuple[NemenyiPair, ...]
    cliques: tuple[tuple[str, ...], ...]
    method: str = "Friedman test with Iman-Davenport's F and the Nemenyi post-hoc test (Demšar 2006)"
    note: str | None = None
    unit: str = "data sets"  # what the rows are, in words ("parts" for the folds of one data set)

    @property
    def n_datasets(self) -> int:
        return len(self.datasets)

    @property
    def n_models(self) -> int:
        return len(self.models)

    @property
    def order(self) -> list[int]:
        """Indices of the models from the best average rank to the worst (stable for ties)."""
        return [int(i) for i in np.argsort(self.average_ranks, kind="stable")]

    def significant(self, confidence: float | None = None) -> bool:
        """Whether Iman-Davenport's F rejects 'all models have the same expected rank'."""
        confidence = self.confidence if confidence is None else confidence
        return bool(self.f_pvalue < 1.0 - confidence)

    def different_pairs(self) -> list[NemenyiPair]:
        return [p for p in self.pairs if p.significant]

    def verdict(self) -> str:
        """The result in plain words."""
        level = format_level(self.confidence)
        k, n = self.n_models, self.n_datasets
        best = self.models[self.order[0]]
        scale = "higher" if self.better == "higher" else "lower"
        head = (f"Over {n} {self.unit}, {best} has the best average rank, {self.average_ranks[self.order[0]]:.2f} "
                f"(1 is the best of {k}; {scale} scores are better).")
        if float(np.ptp(self.average_ranks)) == 0.0:
            head = f"Over {n} {self.unit}, the {k} models share the same average rank ({scale} scores are better)."
        if self.f_pvalue != self.f_pvalue:
            return f"{head} The {k} models cannot be told apart by Friedman's test: {self.note or 'no ranking'}."
        if not self.significant():
            return (f"{head} At {level}, the {k} models' ranks do not differ significantly "
                    f"(Iman-Davenport {format_pvalue(self.f_pvalue)}): the data do not show any of them "
                    f"better than another.")
        different = self.different_pairs()
        if not different:
            return (f"{head} At {level}, the models' ranks differ (Iman-Davenport {format_pvalue(self.f_pvalue)}), "
                    f"but no two of them differ by more than the critical difference "
                    f"{self.critical_difference:.2f}: the Nemenyi test cannot say which.")
        if len(different) > 4:
            return (f"{head} At {level}, the models' ranks differ (Iman-Davenport {format_pvalue(self.f_pvalue)}); "
                    f"by the Nemenyi test (critical difference {self.critical_difference:.2f}), "
                    f"{len(different)} of the {len(self.pairs)} pairs of models differ significantly.")
        said = "; ".join(f"{p.first} ranks better than {p.second}" for p in different)
        return (f"{head} At {level}, the models' ranks differ (Iman-Davenport {format_pvalue(self.f_pvalue)}); "
                f"by the Nemenyi test (critical difference {self.critical_difference:.2f}), {said}. "
                f"The other pairs do not differ significantly.")

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "unit": self.unit,
            "better": self.better,
            "models": list(self.models),
            "datasets": list(self.datasets),
            "n_models": self.n_models,
            "n_datasets": self.n_datasets,
            "scores": [[finite_or_none(float(v)) for v in row] for row in self.scores],
            "ranks": [[float(v) for v in row] for row in self.ranks],
            "average_ranks": {m: float(r) for m, r in zip(self.models, self.average_ranks, strict=True)},
            "friedman": {"statistic": finite_or_none(self.statistic), "df": self.n_models - 1,
                         "pvalue": finite_or_none(self.pvalue), "tie_correction": self.tie_correction},
            "iman_davenport": {"statistic": finite_or_none(self.f_statistic),
                               "df": [self.n_models - 1, (self.n_models - 1) * (self.n_datasets - 1)],
                               "pvalue": finite_or_none(self.f_pvalue)},
            "confidence": self.confidence,
            "nemenyi": {"q_alpha": self.q_alpha, "critical_difference": self.critical_difference,
                        "pairs": [p.to_dict() for p in self.pairs],
                        "cliques": [list(c) for c in self.cliques]},
            "significant": self.significant(),
            "verdict": self.verdict(),
            "note": self.note,
        }


def friedman_nemenyi(scores: Any, *, models: Any = None, datasets: Any = None, better: Direction = "higher",
                     confidence: float = 0.95, tie_correction: bool = True) -> FriedmanResult:
    """Friedman's test and the Nemenyi post-hoc test of k models over N data sets.

    Parameters
    ----------
    scores : array-like of shape (N, k)
        One row per data set, one column per model: each model's score on each data set.
    models : sequence of str of length k, optional
        The models' names (default ``"model 1"``, ...).
    datasets : sequence of str of length N, optional
        The data sets' names (default ``"data set 1"``, ...).
    better : {"higher", "lower"}, default "higher"
        ``"higher"`` when a higher score is better (accuracy, AUC), ``"lower"`` for errors and losses.
    confidence : float, default 0.95
        The confidence level of the tests and of the critical difference (alpha = 1 - confidence).
    tie_correction : bool, default True
        Divide Friedman's statistic by the correction for ties (as R and SciPy); False: Demšar's formula.

    Returns
    -------
    FriedmanResult

    Raises
    ------
    InvalidInput
        On fewer than 2 data sets, fewer than 2 or more than ``assay.limits.MAX_MODELS`` (500) models,
        a missing or non-finite score, names of the wrong length or repeated, or a confidence outside (0, 1).

    Examples
    --------
    >>> r = friedman_nemenyi([[0.9, 0.8, 0.7], [0.8, 0.7, 0.6], [0.7, 0.9, 0.5]], models=["a", "b", "c"])
    >>> r.average_ranks.tolist()
    [1.3333333333333333, 1.6666666666666667, 3.0]
    >>> round(r.statistic, 4), round(r.critical_difference, 3)
    (4.6667, 1.914)
    """
    confidence = check_confidence(confidence)
    if better not in DIRECTIONS:
        raise InvalidInput(f"expected 'higher' or 'lower', got {better!r}", field="better")
    try:
        table = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidInput("expected a table of numbers (data sets x models)", field="scores") from None
    if table.ndim != 2:
        raise InvalidInput(f"expected a 2-d table (data sets x models), got shape {table.shape}", field="scores")
    n, k = table.shape
    if n < 2:
        raise InvalidInput(f"needs at least 2 data sets (rows), got {n}", field="scores")
    if k < 2:
        raise InvalidInput(f"needs at least 2 models (columns), got {k}", field="scores")
    if k > MAX_MODELS:
        raise InvalidInput(f"takes at most {MAX_MODELS:,} models (columns), got {k:,}: the Nemenyi test reports "
                           f"every pair of models (assay.limits.MAX_MODELS)", field="scores")
    bad = np.argwhere(~np.isfinite(table))
    if bad.size:
        i, j = (int(x) for x in bad[0])
        what = "missing" if np.isnan(table[i, j]) else f"{table[i, j]!r} is not a finite number"
        raise InvalidInput(f"column {j} ({_name(models, j, 'model')}): {what}", field="scores", row=i)
    model_names = _names(models, k, "model", "models")
    dataset_names = _names(datasets, n, "data set", "datasets")

    ranks = average_ranks(table, better=better)
    mean_ranks = ranks.mean(axis=0)
    stat = 12.0 * n / (k * (k + 1)) * (float(np.sum(mean_ranks ** 2)) - k * (k + 1) ** 2 / 4.0)
    note = None
    if tie_correction:
        ties = 0.0
        for row in ranks:
            _, counts = np.unique(row, return_counts=True)
            ties += float(np.sum(counts ** 3 - counts))
        correction = 1.0 - ties / (n * (k ** 3 - k))
        if correction <= 0.0:
            stat, note = float("nan"), "every model has the same score on every data set"
        else:
            stat = stat / correction
    stat = max(stat, 0.0) if stat == stat else stat
    df1, df2 = k - 1, (k - 1) * (n - 1)
    if stat != stat:
        pvalue = f_stat = f_pvalue = float("nan")
    else:
        pvalue = float(chi2_sf(stat, df1))
        denominator = n * (k - 1) - stat
        if denominator <= 1e-12 * n * (k - 1):  # every data set ranks the models the same way
            f_stat, f_pvalue = float("inf"), 0.0
        else:
            f_stat = (n - 1) * stat / denominator
            f_pvalue = float(f_sf(f_stat, df1, df2))

    q = nemenyi_q(k, confidence)
    scale = float(np.sqrt(k * (k + 1) / (6.0 * n)))
    cd = q * scale
    first, second = (np.asarray(side, dtype=np.intp) for side in np.triu_indices(k, 1))
    swap = mean_ranks[first] > mean_ranks[second]
    first, second = np.where(swap, second, first), np.where(swap, first, second)
    diffs = mean_ranks[second] - mean_ranks[first]
    # one statistic per pair through one distribution: evaluated once per distinct rank difference
    pvalues = np.clip(studentized_range_sf(diffs / scale * np.sqrt(2.0), k), 0.0, 1.0)
    pairs = [NemenyiPair(model_names[a], model_names[b], d, p, d > cd)
             for a, b, d, p in zip(first.tolist(), second.tolist(), diffs.tolist(), pvalues.tolist(), strict=True)]
    return FriedmanResult(
        models=tuple(model_names), datasets=tuple(dataset_names), scores=table, ranks=ranks,
        average_ranks=mean_ranks, better=better, statistic=float(stat), pvalue=pvalue, f_statistic=float(f_stat),
        f_pvalue=float(f_pvalue), tie_correction=tie_correction, confidence=float(confidence), q_alpha=q,
        critical_difference=cd, pairs=tuple(pairs), cliques=_cliques(mean_ranks, model_names, cd), note=note)


def friedman(table: Any, *, models: Any = None, datasets: Any = None, better: Direction = "higher",
             confidence: float = 0.95, tie_correction: bool = True) -> FriedmanResult:
    """Compare several models over several data sets: Friedman, Iman-Davenport, Nemenyi (Demšar 2006).

    Parameters
    ----------
    table : pandas.DataFrame, dict or array-like of shape (N, k)
        The models' scores: a DataFrame with one row per data set (its index names them) and one
        column per model; a dict ``{model: [score on each data set]}``; or a 2-d array (rows data
        sets, columns models) with ``models`` and ``datasets`` naming them.
    models, datasets : sequence of str, optional
        Names for an array's columns and rows (for a DataFrame: its columns and index; for a dict:
        its keys and ``datasets``).
    better : {"higher", "lower"}, default "higher"
        ``"higher"`` for accuracy or AUC, ``"lower"`` for an error rate or a loss.
    confidence : float, default 0.95
    tie_correction : bool, default True

    Returns
    -------
    FriedmanResult
        See :func:`friedman_nemenyi`.

    Examples
    --------
    >>> r = friedman({"a": [0.9, 0.8, 0.7], "b": [0.8, 0.7, 0.9], "c": [0.7, 0.6, 0.5]})
    >>> r.models, r.average_ranks.tolist()
    (('a', 'b', 'c'), [1.3333333333333333, 1.6666666666666667, 3.0])
    """
    if isinstance(table, dict):
        if models is not None:
            raise InvalidInput("a dict names its models by its keys: leave models= out", field="models")
        names = list(table)
        columns = []
        for name in names:
            try:
                columns.append(np.asarray(table[name], dtype=np.float64).ravel())
            except (TypeError, ValueError):
                raise InvalidInput("expected numbers", field=f"table[{str(name)!r}]") from None
        sizes = {c.size for c in columns}
        if len(sizes) > 1:
            raise InvalidInput(f"every model needs one score per data set; got {sorted(sizes)} scores",
                               field="table")
        values = np.column_stack(columns) if columns else np.empty((0, 0))
        return friedman_nemenyi(values, models=names, datasets=datasets, better=better, confidence=confidence,
                                tie_correction=tie_correction)
    if hasattr(table, "columns") and hasattr(table, "index") and hasattr(table, "to_numpy"):
        try:
            values = table.to_numpy(dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidInput("expected a table of numbers (data sets x models)", field="table") from None
        return friedman_nemenyi(values, models=list(table.columns) if models is None else models,
                                datasets=[str(i) for i in table.index] if datasets is None else datasets,
                                better=better, confidence=confidence, tie_correction=tie_correction)
    return friedman_nemenyi(table, models=models, datasets=datasets, better=better, confidence=confidence,
                            tie_correction=tie_correction)


def _cliques(mean_ranks: np.ndarray, names: list[str], cd: float) -> tuple[tuple[str, ...], ...]:
    """The maximal runs of models (in the order of their average ranks) spanning at most ``cd``: the bars
    of the diagram. A model alone is no clique."""
    order = np.argsort(mean_ranks, kind="stable")
    r = mean_ranks[order]
    runs: list[tuple[int, int]] = []
    for i in range(len(r)):
        j = i
        while j + 1 < len(r) and r[j + 1] - r[i] <= cd:
            j += 1
        if j > i and not any(lo <= i and j <= hi for lo, hi in runs):
            runs.append((i, j))
    return tuple(tuple(names[int(order[t])] for t in range(lo, hi + 1)) for lo, hi in runs)


def _name(names: Any, j: int, kind: str) -> str:
    try:
        return str(list(names)[j])
    except (TypeError, IndexError):
        return f"{kind} {j + 1}"


def _names(given: Any, size: int, kind: str, field: str) -> list[str]:
    if given is None:
        return [f"{kind} {i + 1}" for i in range(size)]
    names = [str(x) for x in given]
    if len(names) != size:
        raise InvalidInput(f"expected {size} names, got {len(names)}", field=field)
    seen: set[str] = set()
    for i, name in enumerate(names):
        if name in seen:
            raise InvalidInput(f"{name!r} is given twice", field=field, row=i)
        seen.add(name)
    return names
