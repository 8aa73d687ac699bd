"""``assay report`` and ``assay curves``."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import click

from assay.cli.common import (
    CONTEXT,
    UserError,
    emit,
    fail,
    output_options,
    parse_pairs,
    parse_range,
    prediction_options,
    read_predictions,
    render,
)
from assay.errors import InvalidInput

__all__ = ["register"]

NAMES = {"positive": "--positive", "threshold": "--threshold", "confidence": "--confidence", "beta": "--beta",
         "bootstrap": "--bootstrap", "labels": "--proba", "costs": "--costs", "prevalence": "--prevalence",
         "fpr_range": "--fpr-range", "lift_depth": "--lift-depth", "auc_interval": "--auc-interval",
         "prior": "--prior", "clip": "--clip", "bins": "--bins"}


def _ranking_options(f):
    for decorator in reversed([
        click.option("--auc-interval", type=click.Choice(["delong", "bootstrap"]), default="delong",
                     show_default=True, help="Interval of the ROC AUC."),
        click.option("--costs", metavar="fp=C,fn=C", help="Costs of the outcomes (also tp=, tn=), e.g. fp=1,fn=10."),
        click.option("--prevalence", type=float, metavar="P",
                     help="Share of positives where the classifier will be used (default: the data's)."),
        click.option("--fpr-range", metavar="LOW,HIGH", help="Also report the partial AUC over this FPR range."),
        click.option("--lift-depth", type=float, default=0.1, show_default=True, metavar="D",
                     help="Report lift among this share of top-scored instances."),
    ]):
        f = decorator(f)
    return f


def _ranking_kwargs(auc_interval: str, costs: str | None, prevalence: float | None, fpr_range: str | None,
                    lift_depth: float) -> dict[str, Any]:
    return {"auc_interval": auc_interval, "costs": parse_pairs(costs, "--costs", keys=("fp", "fn", "tp", "tn")),
            "prevalence": prevalence, "fpr_range": parse_range(fpr_range, "--fpr-range"), "lift_depth": lift_depth}


def register(cli: click.Group) -> None:
    cli.add_command(report)
    cli.add_command(curves)


@click.command(context_settings=CONTEXT)
@prediction_options
@click.option("--confusion", "confusion_file", metavar="FILE",
              help="A confusion matrix CSV instead of predictions (first row: predicted classes; "
                   "first column: actual classes).")
@click.option("--positive", metavar="LABEL", help="The positive class (two classes only).")
@click.option("--threshold", type=float, metavar="T",
              help="Predict positive iff score >= T (default 0.5 for probabilities).")
@click.option("--confidence", type=float, default=0.95, show_default=True, help="Confidence level.")
@click.option("--interval", type=click.Choice(["wilson", "clopper-pearson", "agresti-coull", "jeffreys", "normal"]),
              default="wilson", show_default=True, help="Interval for proportions.")
@click.option("--beta", type=float, default=1.0, show_default=True, help="Also report F-beta when not 1.")
@click.option("--bootstrap", type=int, default=2000, show_default=True,
              help="Bootstrap resamples for F1, MCC, balanced accuracy and averages.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap.")
@_ranking_options
@output_options
def report(file: str | None, truth: str | None, pred: str | None, score: str | None, proba: str | None,
           input_format: str | None, confusion_file: str | None, positive: str | None, threshold: float | None,
           confidence: float, interval: str, beta: float, bootstrap: int, seed: int, auc_interval: str,
           costs: str | None, prevalence: float | None, fpr_range: str | None, lift_depth: float, fmt: str,
           output: str | None) -> None:
    """Evaluate predictions: the confusion matrix, every metric with its interval, the tests.

    FILE is a table of predictions (CSV, TSV, Parquet or JSON lines; - for standard
    input) with a column of actual classes (--truth) and one of: predicted classes
    (--pred), positive-class scores (--score, thresholded at --threshold) or one
    probability column per class (--proba). Or give --confusion with a matrix.

    With scores or probabilities, the report adds the ROC and precision-recall
    analysis (AUC with DeLong's interval, average precision, the convex hull, the
    best thresholds, costs and the iso-performance slope).

    \b
    Examples:
      assay report preds.csv --truth y --pred yhat
      assay report preds.csv --truth y --score p --threshold 0.3 --positive yes
      assay report preds.csv --truth y --score p --costs fp=1,fn=10 --prevalence 0.05
      assay report preds.csv --truth y --proba setosa,versicolor,virginica --format json
      assay report --confusion matrix.csv --positive pos
      cat preds.csv | assay report - --truth y --pred yhat --format markdown
    """
    from assay.evaluation import evaluate, evaluate_confusion

    options = {"confidence": confidence, "interval": interval, "beta": beta, "bootstrap": bootstrap, "seed": seed}
    if confusion_file is not None:
        if file or truth or pred or score or proba:
            raise UserError("--confusion takes a matrix file instead of FILE, --truth, --pred, --score and --proba")
        if threshold is not None:
            raise UserError("--threshold applies to --score or --proba, not to a confusion matrix")
        from assay.io.confusion_file import read_confusion

        try:
            cm = read_confusion(confusion_file)
            result = evaluate_confusion(cm, positive=positive, **options)
        except InvalidInput as e:
            raise fail(e, NAMES) from None
        source: dict[str, Any] = {"confusion": "standard input" if confusion_file == "-" else confusion_file}
    else:
        if file is None:
            raise UserError("give a FILE of predictions (or - for standard input), or --confusion FILE")
        data = read_predictions(file, truth, pred, score, proba, input_format)
        ranking = _ranking_kwargs(auc_interval, costs, prevalence, fpr_range, lift_depth) if not pred else {}
        try:
            result = evaluate(data.truth, positive=positive, threshold=threshold, score_name=data.score_name,
                              **data.kwargs, **options, **ranking)
        except InvalidInput as e:
            raise fail(e, {**NAMES, **data.names}) from None
        source = data.source
    result = replace(result, source=source)
    from assay.report.text import render_text

    render(result, fmt, output, text=lambda tty, width: render_text(result, color=tty, width=width))


CURVES = ("roc", "pr", "lift", "thresholds", "hull")


@click.command(context_settings=CONTEXT)
@prediction_options
@click.option("--kind", type=click.Choice(CURVES), default="roc", show_default=True,
              help="roc, pr (precision-recall), lift (and cumulative gains), thresholds (seed 000's table), "
                   "hull (ROC convex hull).")
@click.option("--positive", metavar="LABEL", help="The positive class.")
@click.option("--at", "at", metavar="T1,T2,...", help="For --kind thresholds: these thresholds only.")
@click.option("--costs", metavar="fp=C,fn=C", help="Costs, for the expected cost column of the threshold table.")
@click.option("--prevalence", type=float, metavar="P", help="Share of positives where the classifier is used.")
@click.option("--format", "fmt", type=click.Choice(["csv", "json"]), default="csv", show_default=True)
@click.option("--output", "-o", metavar="PATH", help="Write to PATH (atomically) instead of stdout.")
def curves(file: str | None, truth: str | None, pred: str | None, score: str | None, proba: str | None,
           input_format: str | None, kind: str, positive: str | None, at: str | None, costs: str | None,
           prevalence: float | None, fmt: str, output: str | None) -> None:
    """Export the points of a curve (ROC, PR, lift, threshold table, hull) as CSV or JSON.

    One row per distinct threshold, exact (positive iff score >= threshold), for
    plotting elsewhere.

    \b
    Examples:
      assay curves preds.csv --truth y --score p --kind roc > roc.csv
      assay curves preds.csv --truth y --score p --kind thresholds --at 0.2,0.4,0.6,0.8
      assay curves preds.csv --truth y --score p --kind lift --format json -o lift.json
    """
    import numpy as np

    from assay.evaluation.evaluate import rank

    data = read_predictions(file, truth, pred, score, proba, input_format, allow=("score", "proba"))
    try:
        r = rank(data.truth, positive=positive, score_name=data.score_name,
                 costs=parse_pairs(costs, "--costs", keys=("fp", "fn", "tp", "tn")), prevalence=prevalence,
                 **data.kwargs)
    except InvalidInput as e:
        raise fail(e, {**NAMES, **data.names, "y_proba": "--proba"}) from None
    if kind == "roc":
        table = r.roc()
    elif kind == "pr":
        table = r.pr()
    elif kind == "lift":
        table = r.lift_curve()
    elif kind == "hull":
        table = r.hull()
    else:
        points = None
        if at is not None:
            try:
                points = np.array([float(v) for v in at.split(",") if v.strip()])
            except ValueError:
                raise UserError(f"--at: {at!r} is not a comma-separated list of numbers") from None
        table = r.threshold_table(points)
    from assay.report.curves import curve_csv, curve_json

    emit(curve_csv(table) if fmt == "csv" else curve_json(table, kind=kind, positive=r.summary.labels[1]), output)
