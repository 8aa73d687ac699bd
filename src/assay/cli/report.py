"""``assay report`` and ``assay curves``."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from typing import Any

import click

from assay.cli.common import (
    CONTEXT,
    DEFAULT_MEMORY,
    THRESHOLD,
    UserError,
    check_budget,
    emit,
    engine_options,
    fail,
    in_cli_words,
    named_on_command_line,
    on_spark,
    parse_size,
    picture_options,
    prediction_options,
    proba_pairs,
    read_predictions,
    render,
    streams,
    table_output_options,
    write_pictures,
)
from assay.cli.options import FLAG_NAMES, FLAGS, options_of
from assay.errors import InvalidInput

__all__ = ["register"]

NAMES = {**FLAG_NAMES, "y_score=": "--score", "allow_disjoint_labels=True": "--allow-disjoint-labels",
         "positive": "--positive", "thresholds": "--at", "labels": "--proba", "specificities": "--at-specificity"}
"""How errors name the library's arguments: the flags of :data:`assay.cli.options.FLAGS`, and the data's."""


def _ranking_options(f):
    for decorator in reversed([
        click.option("--auc-interval", type=click.Choice(["delong", "bootstrap"]), default="delong",
                     show_default=True, help="Interval of the ROC AUC."),
        click.option("--costs", metavar="fp=C,fn=C", help="Costs of the outcomes (also tp=, tn=), e.g. fp=1,fn=10."),
        click.option("--prevalence", type=float, metavar="P",
                     help="Share of positives where the classifier will be used (default: the data's)."),
        click.option("--fpr-range", metavar="LOW,HIGH",
                     help="Also report the partial AUC over this FPR range (raw, McClish's standardised, bootstrap "
                          "intervals)."),
        click.option("--sensitivity-range", metavar="LOW,HIGH",
                     help="Also report the partial AUC over this sensitivity range (pROC's partial.auc.focus=se)."),
        click.option("--lift-depth", type=float, default=0.1, show_default=True, metavar="D",
                     help="Report lift among this share of top-scored instances."),
        click.option("--at-specificity", type=float, multiple=True, metavar="SP",
                     help="The sensitivity at this specificity, with its interval and the threshold that reaches "
                          "it (repeatable; read off the ROC curve as pROC's coords, bootstrap interval as ci.se)."),
        click.option("--at-sensitivity", type=float, multiple=True, metavar="SE",
                     help="The specificity at this sensitivity, likewise (repeatable; pROC's ci.sp)."),
        click.option("--direction", type=click.Choice(["higher", "lower", "auto"]), default="higher",
                     show_default=True,
                     help="Which scores mean the positive class: lower (positive iff score <= T, thresholds in the "
                          "scores' units) or auto (chosen on the data as pROC does; biases the AUC upward)."),
        click.option("--constraint", "constraints", multiple=True, metavar="RATE>=X",
                     help="The best threshold under a constraint (repeatable): precision>=0.8 or fpr<=0.05 "
                          "maximise recall; recall>=0.9 maximises specificity."),
        click.option("--roc-band", is_flag=True,
                     help="Also the ROC confidence band: the sensitivity's bootstrap interval at specificities "
                          "0, 0.02, ..., 1 (pROC's ci.se), in the JSON, the HTML report and --plots."),
        click.option("--roc-bins", type=int, metavar="N",
                     help="Approximate on request: group the distinct scores into about N bins (as Spark's "
                          "numBins) and say how far the AUC may be off (default: exact, every distinct score)."),
    ]):
        f = decorator(f)
    return f


def _probabilistic_options(f):
    for decorator in reversed([
        click.option("--prior", metavar="CLASS=P,...",
                     help="Class frequencies of the training data, for the relative losses "
                          "(default: the test data's)."),
        click.option("--clip", type=float, metavar="EPS",
                     help="Clip the true class's probability to [EPS, 1] in the information loss "
                          "(default: a probability of 0 makes it infinite)."),
        click.option("--bins", type=int, default=10, show_default=True, help="Bins of the calibration table."),
        click.option("--calibration", metavar="WHAT[,WHAT...]",
                     help="The calibration table's bins, uniform (equal width, the default) or quantile (equal "
                          "counts), and what the calibration shows: table (reliability table, ECE), hierarchy "
                          "(mean and weak: intercept, slope, tests, as rms::val.prob), curve (lowess with its "
                          "E-statistics and band), brier (Brier decomposition), all (the default) or none; e.g. "
                          "--calibration quantile,table,curve."),
        click.option("--net-benefit", is_flag=True,
                     help="Also the decision curve (Vickers & Elkin 2006): net benefit at threshold probabilities "
                          "against treating everyone and no one, interventions avoided per 100, bootstrap intervals; "
                          "with --costs, the threshold probability fp/(fp+fn) they imply; with --prevalence, a "
                          "case-control sample."),
        click.option("--thresholds-range", metavar="LOW,HIGH[,STEP]",
                     help="Threshold probabilities of the decision curve (default 0.01,0.99,0.01; implies "
                          "--net-benefit)."),
    ]):
        f = decorator(f)
    return f


def register(cli: click.Group) -> None:
    cli.add_command(report)
    cli.add_command(curves)


@click.command(context_settings=CONTEXT)
@prediction_options
@click.option("--confusion", "confusion_file", metavar="FILE",
              help="A confusion matrix CSV instead of predictions (first row: predicted classes; "
                   "first column: actual classes).")
@click.option("--positive", metavar="LABEL", help="The positive class (two classes only).")
@click.option("--allow-disjoint-labels", is_flag=True,
              help="Accept --pred labels of which none is a class of --truth, or that look like scores "
                   "(refused by default: the sign of a wrong column).")
@click.option("--cost-matrix", "cost_matrix_file", metavar="FILE",
              help="Costs of every outcome, laid out as --confusion (first row: predicted classes; first column: "
                   "actual classes): the expected cost of the predictions, and with --proba the decisions of least "
                   "expected cost against them.")
@click.option("--kappa-weights", type=click.Choice(["linear", "quadratic"]),
              help="Ordered classes: also the weighted kappa, weights by the classes' positions in their order "
                   "(numeric when all are numbers), with its interval and z test.")
@click.option("--by", "by", multiple=True, metavar="COL",
              help="Evaluate every group of COL too (repeatable: the combinations of several columns): each group's "
                   "report, the gaps between groups with intervals and tests, fairlearn's disparity summaries.")
@click.option("--weight", metavar="COL",
              help="A column of sample weights (scikit-learn's sample_weight): whole numbers count each row that many "
                   "times, with every interval; other weights give weighted estimates without intervals.")
@click.option("--threshold", type=THRESHOLD, metavar="T",
              help="Predict positive iff score >= T (default 0.5 for probabilities; other scores without T get the "
                   "threshold-free analysis); youden, closest or cost choose T on the same data (Youden's J; the ROC "
                   "point closest to (0, 1); the least expected cost with --costs at --prevalence), which the "
                   "report says is optimistic.")
@click.option("--confidence", type=float, default=0.95, show_default=True, help="Confidence level.")
@click.option("--interval", type=click.Choice(["wilson", "clopper-pearson", "agresti-coull", "jeffreys", "normal"]),
              default="wilson", show_default=True, help="Interval for proportions.")
@click.option("--beta", type=float, default=1.0, show_default=True, help="Also report F-beta when not 1.")
@click.option("--top-k", "top_k", type=int, metavar="K",
              help="With --proba of more than two classes: also the top-K accuracy, the share of instances whose "
                   "actual class is among their K most probable, with its interval (scikit-learn's "
                   "top_k_accuracy_score).")
@click.option("--calibration-class", "calibration_class", metavar="CLASS",
              help="With --proba of more than two classes: the calibration of CLASS's probabilities against the "
                   "rest (its table, mean and weak calibration, lowess curve, Brier decomposition), in place of "
                   "the top label's table.")
@click.option("--bootstrap", type=int, default=2000, show_default=True,
              help="Bootstrap resamples for F1, MCC, balanced accuracy and averages.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bootstrap.")
@_ranking_options
@_probabilistic_options
@engine_options(
    memory=(
        "Memory budget for the data assay holds (default 2GB; at least 32MB): the blocks read, the batches "
        "counted, the score summary and its sort. A FILE larger than an eighth of it, a directory of parts or"
        " a glob is read in batches, exactly, for --pred, --score and --proba (a Parquet FILE of --score over"
        " 16MB too: faster and lighter); a score summary beyond its share goes to TMPDIR (up to 48 bytes a "
        "row there). Not counted: Python and its libraries, about 300MB more."),
    engine=(
        "spark: Apache Spark reads FILE (any path it can read) and counts on its executors; only the "
        "summaries reach this process (pip install 'assay[spark]')."),
)
@click.option("--task", type=click.Choice(["auto", "classification", "regression"]), default="auto",
              show_default=True,
              help="regression: numeric predictions (MSE, MAE, relative errors, correlation); auto: regression "
                   "when the truth holds non-integer numbers.")
@picture_options
@click.option("--brief", is_flag=True,
              help="One screen: the headline metrics with their intervals, the tests and the sentences in words.")
@table_output_options
def report(file: str | None, truth: str | None, pred: str | None, score: str | None, proba: str | None,
           input_format: str | None, na_values: str | None, confusion_file: str | None, positive: str | None,
           allow_disjoint_labels: bool, cost_matrix_file: str | None, kappa_weights: str | None, by: tuple[str, ...],
           weight: str | None, threshold: float | str | None, confidence: float,
           interval: str, beta: float, top_k: int | None, calibration_class: str | None, bootstrap: int, seed: int,
           auc_interval: str, costs: str | None, prevalence: float | None, fpr_range: str | None,
           sensitivity_range: str | None, lift_depth: float,
           at_specificity: tuple[float, ...], at_sensitivity: tuple[float, ...], direction: str,
           constraints: tuple[str, ...],
           roc_band: bool,
           roc_bins: int | None, prior: str | None, clip: float | None, bins: int, calibration: str | None,
           net_benefit: bool, thresholds_range: str | None,
           memory: str | None, engine: str, verbose: bool, task: str, html: str | None, plots: str | None, brief: bool, fmt: str,
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
      assay report preds.csv --truth y --pred yhat --weight w
      assay report asah.csv --truth outcome --score s100b --at-specificity 0.9 --at-sensitivity 0.95
      assay report preds.csv --truth y --score p --constraint 'precision>=0.8'
      assay report preds.csv --truth y --score p --net-benefit --costs fp=1,fn=9
      assay report preds.csv --truth y --score p --threshold 0.3 --by site --by sex
      assay report preds.csv --truth y --proba setosa,versicolor,virginica --format json
      assay report --confusion matrix.csv --positive pos
      assay report sales.csv --truth actual --pred forecast --task regression
      cat preds.csv | assay report - --truth y --pred yhat --format markdown
      assay report preds.csv --truth y --score p --html report.html --plots plots/
    """
    from assay.evaluation import evaluate, evaluate_confusion
    from assay.evaluation.options import PROBABILITY_OPTIONS
    from assay.report.text import render_text

    _refuse_inapplicable(confusion_file, pred, score, proba, task)
    _compile_while_reading(file, fmt)
    if verbose and (engine != "spark" or confusion_file is not None):
        raise UserError("--verbose shows Spark's own log: it applies to --engine spark")
    if top_k is not None and (confusion_file is not None or not proba):
        raise UserError("--top-k takes --proba of more than two classes")
    if cost_matrix_file is not None and costs is not None:
        raise UserError("give --costs fp=...,fn=... or --cost-matrix FILE, not both")
    options = options_of(click.get_current_context().params)
    if confusion_file is not None:
        if file or truth or pred or score or proba:
            raise UserError("--confusion takes a matrix file instead of FILE, --truth, --pred, --score and --proba")
        if engine == "spark" or memory is not None:
            raise UserError(f"{'--engine spark' if engine == 'spark' else '--memory'} applies to a FILE of "
                            "predictions; a confusion matrix is read whole")
        if threshold is not None or weight is not None or by:
            flag = '--threshold' if threshold is not None else '--weight' if weight is not None else '--by'
            raise UserError(f"{flag} applies to a FILE of predictions, not to a confusion matrix")
        from assay.io.confusion_file import read_confusion

        try:
            cm = read_confusion(confusion_file)
            result = evaluate_confusion(cm, positive=positive, options=options)
        except InvalidInput as e:
            raise fail(e, NAMES) from None
        source: dict[str, Any] = {"confusion": "standard input" if confusion_file == "-" else confusion_file}
    else:
        if file is None:
            raise UserError("give a FILE of predictions (or - for standard input), or --confusion FILE")
        if by and task == "regression":
            raise UserError("--by applies to classifiers' reports (not to numeric predictions yet)")
        if weight is not None and (engine == "spark" or streams(file, memory)):
            raise UserError("--weight needs the table in memory: give one file that fits in --memory (a directory, "
                            "a glob, a larger file or --engine spark is read in batches, without weights)")
        if engine == "spark":
            if task == "regression" or not truth or sum(x is not None for x in (pred, score, proba)) != 1:
                raise UserError("--engine spark takes --truth and one of --pred, --score or --proba")
            proba_columns = proba_pairs(proba) if proba else None
            budget = {}
            if score or proba:
                budget["memory"] = parse_size(memory or DEFAULT_MEMORY, "--memory")
                if memory is not None:  # the driver's budget for the score summary: the same minimum
                    check_budget(file, memory, budget["memory"], remote=True)
            result = _report_spark(file, truth, pred, score, input_format, positive, options,
                                   {**budget, **({"by": list(by)} if by else {})}, fmt, verbose, proba_columns)
            source = {k: v for k, v in {"file": file, "truth": truth, "pred": pred, "score": score,
                                        "proba": list(proba_columns.values()) if proba_columns else None,
                                        "engine": "spark"}.items() if v is not None}
        elif streams(file, memory, scores=score is not None and weight is None and task != "regression"):
            if task == "regression":
                raise UserError("--task regression needs the whole table in memory: give one file that fits in "
                                "--memory (a directory, a glob or a larger file is read in batches for --pred, "
                                "--score and --proba)")
            proba_columns = proba_pairs(proba) if proba else None
            labelled = {"allow_disjoint_labels": allow_disjoint_labels} if pred else {}
            result = _report_streamed(file, truth, pred, score, proba_columns, input_format, na_values, positive,
                                      options, labelled, fmt, parse_size(memory or DEFAULT_MEMORY, "--memory"), by)
            source = {k: v for k, v in {"file": file, "truth": truth, "pred": pred, "score": score,
                                        "proba": list(proba_columns.values()) if proba_columns else None}.items()
                      if v is not None}
        else:
            data = read_predictions(file, truth, pred, score, proba, input_format, na_values,
                                    extra_columns=((weight,) if weight else ()) + tuple(by))
            if task != "classification" and pred:
                regression = _regression_if_numeric(data, task)
                if regression is not None:
                    refuse_for_regression(options, regression, positive=positive,
                                          allow_disjoint_labels=allow_disjoint_labels)
                    _report_regression(data, regression, options, fmt, output, weight, html=html, plots=plots,
                                       brief=brief)
                    return
            elif task == "regression":
                raise UserError("--task regression compares --truth with --pred (numeric predictions)")
            labelled = {"allow_disjoint_labels": allow_disjoint_labels} if pred else {}
            weights = {"sample_weight": data.extra[weight]} if weight else {}
            grouped = {"by": {column: data.extra[column] for column in by}} if by else {}
            try:
                result = evaluate(data.truth, positive=positive, score_name=data.score_name, **data.kwargs,
                                  **labelled, **weights, **grouped, options=options)
            except InvalidInput as e:
                raise fail(e, {**NAMES, **data.names, "sample_weight": f"column {weight!r}",
                               **{f"by {column}": f"column {column!r}" for column in by}}) from None
            source = {**data.source, **({"weight": weight} if weight else {})}
    if by:
        _report_groups(result, {**source, "by": list(by)}, fmt, output, html, plots, brief)
        return
    result = in_cli_words(replace(result, source=source))
    write_pictures(result, html, plots)
    asked = bool(set(PROBABILITY_OPTIONS) & set(options.asked()))  # one screen then says their sentences
    render(result, fmt, output, text=lambda tty, width: render_text(result, color=tty, width=width, brief=brief,
                                                                    probabilities=asked))


def _report_groups(result: Any, source: dict[str, Any], fmt: str, output: str | None, html: str | None,
                   plots: str | None, brief: bool) -> None:
    """The report by group: its text, JSON, Markdown, HTML and plots (all the instances' and by group)."""
    from assay.report.groups import groups_document
    from assay.report.markdown import render_blocks_markdown
    from assay.report.text import render_blocks_text

    result = replace(result, overall=in_cli_words(replace(result.overall, source=source)))
    write_pictures(result, html, plots)
    render(result, fmt, output,
           text=lambda tty, width: render_blocks_text(groups_document(result, brief=brief), color=tty, width=width),
           markdown=lambda: render_blocks_markdown(groups_document(result)))


def _refuse_inapplicable(confusion_file: str | None, pred: str | None, score: str | None, proba: str | None,
                         task: str) -> None:
    """Refuse, before any data is read, every option given that does not apply to the predictions given
    (even at its default value): applied or refused, never ignored."""
    from assay.evaluation.applicability import APPLIES_TO, refuse_inapplicable

    applicable = {param: (option, flag) for option, (param, flag, _) in FLAGS.items() if option in APPLIES_TO}
    if task == "regression" or sum(x is not None for x in (confusion_file, pred, score, proba)) != 1:
        return  # numeric predictions, or a usage error said later
    kind = "labels" if confusion_file is not None or pred is not None else "scores" if score is not None \
        else "scores" if len(proba_pairs(proba)) == 2 else "probabilities"
    given = [applicable[p][0] for p in named_on_command_line(applicable)]
    flags = {option: flag for option, flag in applicable.values()}
    what = "a confusion matrix" if confusion_file is not None else None
    try:
        refuse_inapplicable(kind, given, names=flags)
    except InvalidInput as e:
        raise UserError(e.problem.replace("predicted labels", what) if what else e.problem) from None


LARGE_INPUT = 4 << 20
"""Inputs of at least this many bytes (or directories and globs) may hold enough rows for the compiled
kernels (``assay.summaries.kernels.MIN_SIZE``): these start loading them while the input is read."""


def _compile_while_reading(file: str | None, fmt: str) -> None:
    """Start loading the compiled kernels beside the reading of a large input, and say so on a terminal when
    they are compiled for the first time on this installation (several seconds, once)."""

    from assay.summaries import kernels

    if file is None or file == "-":
        return
    try:
        large = os.path.isdir(file) or (any(c in file for c in "*?[") and not os.path.exists(file)) \
            or os.path.getsize(file) >= LARGE_INPUT
    except OSError:
        return
    if not large:
        return
    if fmt == "text" and sys.stderr.isatty() and kernels.cached() is False:
        click.echo("assay: compiling its kernels for this installation (once, about 10 s, beside the reading)",
                   err=True)
    kernels.warm_up()


def _report_spark(file: str, truth: str, pred: str | None, score: str | None, input_format: str | None,
                  positive: str | None, options: Any, budget: dict[str, Any], fmt: str, verbose: bool,
                  proba: dict[str, str] | None = None) -> Any:
    """FILE read by Spark, evaluated by assay.spark (:func:`assay.cli.common.on_spark`); ``proba``: the
    classes' probability columns (:func:`assay.cli.common.proba_pairs`)."""
    from assay.engines import spark as engine

    return on_spark(file, input_format, fmt, verbose, "counting on Spark", NAMES, lambda df, update: engine.evaluate(
        df, truth=truth, pred=pred, score=score, proba=proba, positive=positive, progress=update, options=options,
        **budget))


def _report_streamed(file: str, truth: str | None, pred: str | None, score: str | None, proba: dict[str, str] | None,
                     input_format: str | None, na_values: str | None, positive: str | None, options: Any,
                     labelled: dict[str, Any], fmt: str, memory: int, by: tuple[str, ...] = ()) -> Any:
    from assay.cli.common import dialect_options, parse_na_values, progress_bar
    from assay.engines.files import evaluate_file

    if truth is None:
        raise UserError("--truth COL is required: the column of actual values")
    if sum(x is not None for x in (pred, score, proba)) != 1:
        raise UserError("give exactly one of --pred, --score or --proba")
    bar, update = progress_bar(fmt, "reading")
    try:
        if bar is not None:
            bar.start()
        return evaluate_file(file, truth=truth, pred=pred, score=score, proba=proba, format=input_format,
                             na_values=parse_na_values(na_values), **dialect_options(), progress=update,
                             positive=positive, memory=memory, options=options, **labelled,
                             **({"by": list(by)} if by else {}))
    except InvalidInput as e:
        raise fail(e, {**NAMES, "format": "--input-format", **{f"by {c}": f"column {c!r}" for c in by}}) from None
    finally:
        if bar is not None:
            bar.stop()


def _regression_if_numeric(data: Any, task: str) -> str | None:
    """'regression' (with the reason) when asked, or when the library finds the predictions numeric
    (``prediction_task``); its refusal of many numbers never predicted exactly, in the options' words."""
    from assay.evaluation.regression_validation import prediction_task

    try:
        reason = prediction_task(task, data.truth, data.kwargs["y_pred"])
    except InvalidInput as e:
        raise fail(e, {**NAMES, **data.names, "task=regression": "--task regression",
                       "task=classification": "--task classification"}) from None
    return "asked with --task regression" if task == "regression" else reason


REGRESSION_OPTIONS = ("confidence", "bootstrap", "seed")
"""The options a regression's report applies (its intervals); every other one is refused."""


def refuse_for_regression(options: Any, reason: str, *, positive: str | None, allow_disjoint_labels: bool) -> None:
    """One line for the first option given that a regression's report would not apply (a classifier's:
    a threshold, costs, a positive class, ...), saying why the predictions are read as a regression."""
    flags = [FLAG_NAMES.get(name, name) for name in options.asked() if name not in REGRESSION_OPTIONS]
    flags += ["--positive"] if positive is not None else []
    flags += ["--allow-disjoint-labels"] if allow_disjoint_labels else []
    if flags:
        how = "" if reason.startswith("asked") else "; give --task classification to read them as labels"
        raise UserError(f"{flags[0]} applies to classification, not to a regression (numeric predictions: "
                        f"{reason}){how}")


def _report_regression(data: Any, reason: str, options: Any, fmt: str, output: str | None,
                       weight: str | None = None, *, html: str | None = None, plots: str | None = None,
                       brief: bool = False) -> None:
    from assay.evaluation.regression import evaluate_regression
    from assay.report.document import regression_document
    from assay.report.markdown import render_blocks_markdown
    from assay.report.text import render_blocks_text

    try:
        result = evaluate_regression(data.truth, data.kwargs["y_pred"], confidence=options.confidence,
                                     bootstrap=options.bootstrap, seed=options.seed,
                                     sample_weight=data.extra[weight] if weight else None)
    except InvalidInput as e:
        raise fail(e, {**NAMES, **data.names, "sample_weight": f"column {weight!r}"}) from None
    result = replace(result, source={k: v for k, v in data.source.items() if k in ("file", "truth", "pred")},
                     notes=(f"numeric predictions: {reason}",) + tuple(result.notes))
    write_pictures(result, html, plots)  # predicted against actual, residuals (report.regression_plots)
    render(result, fmt, output,
           text=lambda tty, width: render_blocks_text(regression_document(result, brief=brief), color=tty,
                                                      width=width),
           markdown=lambda: render_blocks_markdown(regression_document(result)))


CURVES = ("roc", "pr", "lift", "thresholds", "hull")


@click.command(context_settings=CONTEXT)
@prediction_options
@click.option("--kind", type=click.Choice(CURVES), default="roc", show_default=True,
              help="roc, pr (precision-recall), lift (and cumulative gains), thresholds (the threshold table of Fawcett 2006), "
                   "hull (ROC convex hull).")
@click.option("--positive", metavar="LABEL", help="The positive class.")
@click.option("--class", "class_", metavar="LABEL",
              help="With --proba of more than two classes: this class against the rest (default: every class, "
                   "one after another, in a class column); --kind roc or pr.")
@click.option("--direction", type=click.Choice(["higher", "lower", "auto"]), default="higher", show_default=True,
              help="Which scores mean the positive class: lower (positive iff score <= T; the curve runs from the "
                   "lowest score up, thresholds in the scores' units) or auto (chosen on the data as pROC does; "
                   "not with --engine spark).")
@click.option("--at", "at", metavar="T1,T2,...", help="For --kind thresholds: these thresholds only.")
@click.option("--costs", metavar="fp=C,fn=C", help="Costs, for the expected cost column of the threshold table "
                                                    "(--kind thresholds).")
@click.option("--prevalence", type=float, metavar="P",
              help="Share of positives where the classifier is used: --kind pr (precision TPR·P / (TPR·P + "
                   "FPR·(1 − P))), lift (depth P·TPR + (1 − P)·FPR) and thresholds (every column that moves with "
                   "the class balance) are at P; roc and hull do not move with it and refuse it.")
@click.option("--roc-bins", type=int, metavar="N",
              help="Approximate on request: about N bins of consecutive distinct scores (as Spark's numBins).")
@engine_options(
    memory=(
        "Memory budget for the data assay holds (default 2GB; at least 32MB): a FILE larger than an eighth of"
        " it (a Parquet FILE over 16MB), a directory of parts or a glob is read in batches; a score summary "
        "beyond its share goes to TMPDIR (up to 48 bytes a row there). Not counted: Python and its libraries,"
        " about 300MB more."),
    engine=(
        "spark: Apache Spark reads FILE (any path it can read) and counts on its executors; with -o DIR the "
        "executors write every point, none passing through this process (pip install 'assay[spark]'). Takes "
        "--truth and --score."),
)
@click.option("--format", "fmt", type=click.Choice(["csv", "json"]), default="csv", show_default=True,
              help="csv, or json: one object of columns; with --engine spark and -o DIR, CSV parts each with its "
                   "header line, or JSON lines (one object a point, null for an undefined or infinite value).")
@click.option("--output", "-o", metavar="PATH",
              help="Write to PATH (atomically) instead of stdout. With --engine spark, PATH is a directory: Spark "
                   "writes its parts (in the curve's order) to a sibling temporary directory renamed to PATH; an "
                   "existing PATH must be an empty directory.")
def curves(file: str | None, truth: str | None, pred: str | None, score: str | None, proba: str | None,
           input_format: str | None, na_values: str | None, kind: str, positive: str | None, class_: str | None,
           direction: str, at: str | None, costs: str | None, prevalence: float | None, roc_bins: int | None,
           memory: str | None, engine: str, verbose: bool, fmt: str, output: str | None) -> None:
    """Export the points of a curve (ROC, PR, lift, threshold table, hull) as CSV or JSON.
    One row per distinct threshold, exact (positive iff score >= threshold), for
    plotting elsewhere.

    \b
    Examples:
      assay curves preds.csv --truth y --score p --kind roc > roc.csv
      assay curves preds.csv --truth y --score p --kind thresholds --at 0.2,0.4,0.6,0.8
      assay curves preds.csv --truth y --score p --kind lift --format json -o lift.json
      assay curves hpc_cv.csv --truth obs --proba VF,F,M,L --class VF --kind pr
      assay curves hpc_cv.csv --truth obs --proba VF,F,M,L --kind roc > roc_per_class.csv
      assay curves s3a://bucket/preds/ --engine spark --truth y --score p -o s3a://bucket/roc/

    With --proba of more than two classes, each class's one-vs-rest curve (its probability
    column ranking it against all the others; Fawcett 2006, section 9).

    With --engine spark and -o DIR, the executors make the points of each range of
    scores (roc, pr, lift, thresholds) and write them: part-00000... in the curve's order.
    """
    from assay.evaluation.evaluate import rank
    from assay.evaluation.ranking import check_curve_options

    asked = {"prevalence": prevalence, "costs": costs, "thresholds": at}
    flags = {"prevalence": "--prevalence", "costs": "--costs", "thresholds": "--at"}
    try:
        check_curve_options(kind, [option for option, value in asked.items() if value is not None])
    except InvalidInput as e:
        raise fail(e, flags) from None
    if verbose and engine != "spark":
        raise UserError("--verbose shows Spark's own log: it applies to --engine spark")
    if class_ is not None and (proba is None or len(proba_pairs(proba)) <= 2):
        raise UserError("--class applies to --proba of more than two classes (two classes: --positive)")
    points = _thresholds_given(at)
    if engine == "spark":
        r = _curves_spark(file, truth, pred, score, proba, input_format, kind, positive, direction, points,
                          prevalence, roc_bins, memory, fmt, output, verbose)
        if r is None:
            return
    elif file is not None and streams(file, memory, scores=score is not None and not proba):
        if proba or not score or not truth:
            raise UserError("data read in batches takes --truth and --score (--proba needs the whole table)")
        from assay.cli.common import dialect_options, parse_na_values
        from assay.engines.files import rank_file

        try:
            r = rank_file(file, truth=truth, score=score, format=input_format, na_values=parse_na_values(na_values),
                          **dialect_options(), positive=positive, options=options_of(click.get_current_context().params),
                          memory=parse_size(memory or DEFAULT_MEMORY, "--memory"))
        except InvalidInput as e:
            raise fail(e, {**NAMES, "format": "--input-format"}) from None
    elif proba is not None and len(proba_pairs(proba)) > 2:
        two_class = {"--positive": positive, "--prevalence": prevalence, "--costs": costs, "--at": at,
                     "--roc-bins": roc_bins, "--direction": None if direction == "higher" else direction}
        for flag, value in two_class.items():
            if value is not None:
                raise UserError(f"{flag} applies to two classes' scores; with --proba of more than two classes "
                                "each class's curve against the rest is given (--class names one)")
        _class_curves(file, truth, proba, input_format, na_values, kind, class_, fmt, output)
        return
    else:
        data = read_predictions(file, truth, pred, score, proba, input_format, na_values, allow=("score", "proba"))
        try:
            r = rank(data.truth, positive=positive, score_name=data.score_name, **data.kwargs,
                     options=options_of(click.get_current_context().params))
        except InvalidInput as e:
            raise fail(e, {**NAMES, **data.names, "y_proba": "--proba"}) from None
    from assay.report.curves import (
        curve_csv,
        curve_csv_pieces,
        curve_json,
        curve_json_pieces,
    )

    if r.summary.on_disk and (kind in ("roc", "pr", "lift") or (kind == "thresholds" and at is None)):
        # spilled to disk, or kept on Spark's executors: the curve is written a chunk of points at a time,
        # never held whole
        positive_label = r.summary.labels[1]
        given = {} if prevalence is None else {"prevalence": prevalence}
        emit(curve_csv_pieces(r.curve_chunks(kind, **given)) if fmt == "csv" else
             curve_json_pieces(lambda: r.curve_chunks(kind, **given), kind=kind, positive=positive_label), output)
        return
    if kind == "roc":
        table = r.roc()
    elif kind == "pr":
        table = r.pr(prevalence)
    elif kind == "lift":
        table = r.lift_curve(prevalence)
    elif kind == "hull":
        table = r.hull()
    else:
        try:
            table = r.threshold_table(points, prevalence=prevalence)
        except InvalidInput as e:
            raise fail(e, NAMES) from None
    emit(curve_csv(table) if fmt == "csv" else curve_json(table, kind=kind, positive=r.summary.labels[1]), output)


def _thresholds_given(at: str | None) -> Any:
    """--at's thresholds (None when not given)."""
    import numpy as np

    if at is None:
        return None
    try:
        return np.array([float(v) for v in at.split(",") if v.strip()])
    except ValueError:
        raise UserError(f"--at: {at!r} is not a comma-separated list of numbers") from None


SPARK_CURVE_REFUSED = {"--proba": "each class's curve of class probabilities is not made on Spark yet "
                                  "(assay report --engine spark takes --proba)",
                       "--pred": "a curve needs scores",
                       "--roc-bins": "with -o DIR the executors write the exact points (every distinct score); "
                                     "without -o the binned curve is printed"}
"""Why ``assay curves --engine spark`` refuses an option (one line each)."""


def _curves_spark(file: str | None, truth: str | None, pred: str | None, score: str | None, proba: str | None,
                  input_format: str | None, kind: str, positive: str | None, direction: str, points: Any,
                  prevalence: float | None, roc_bins: int | None, memory: str | None, fmt: str,
                  output: str | None, verbose: bool) -> Any:
    """``assay curves --engine spark``: FILE read by Spark (:func:`assay.cli.common.on_spark`). With -o, the
    points written by Spark (:func:`assay.engines.spark_curves.write_points`; None is returned); without,
    the ranking analysis whose curve is printed a chunk at a time."""
    # --roc-bins without -o: the binned summary (about N entries, read by index) is held and printed
    binned = roc_bins if output is not None else None
    for flag, value in (("--proba", proba), ("--pred", pred), ("--roc-bins", binned)):
        if value is not None:
            where = " and -o DIR" if flag == "--roc-bins" else ""
            raise UserError(f"{flag} does not apply to curves with --engine spark{where}: "
                            f"{SPARK_CURVE_REFUSED[flag]}")
    if file is None or not truth or not score:
        raise UserError("--engine spark takes FILE, --truth and --score")
    if direction == "auto":
        raise UserError("--direction auto does not apply with --engine spark: choosing it reads every distinct "
                        "score on this process; give --direction higher or lower")
    if file == "-":
        raise UserError("--engine spark reads a path Spark can read, not standard input")
    budget = {}
    if memory is not None:  # the driver's budget for a summary it walks: the same minimum
        budget["memory"] = parse_size(memory, "--memory")
        check_budget(file, memory, budget["memory"], remote=True)
    options = options_of(click.get_current_context().params).replace(prevalence=None)  # the curve's, below
    names = {**NAMES, "thresholds": "--at", "kind": "--kind"}
    if output is not None:
        from assay.engines.spark_curves import check_output_dir, has_scheme

        if not has_scheme(output):  # refused before Spark starts (checked again as it writes)
            try:
                check_output_dir(output, [file])
            except InvalidInput as e:
                raise fail(e) from None

    def run(df: Any, update: Any) -> Any:
        from assay.engines import spark as engine
        from assay.engines import spark_curves

        if output is None:
            return engine.rank(df, truth=truth, score=score, positive=positive, options=options, **budget)
        from assay.report.curves import curve_cells, curve_values

        frame = spark_curves.curve_frame(
            df, truth=truth, score=score, kind=kind, positive=positive, direction=direction, prevalence=prevalence,
            costs=options.costs, thresholds=points, render=curve_cells if fmt == "csv" else curve_values,
            render_type="string" if fmt == "csv" else "double", **budget)
        spark_curves.write_points(frame, output, format=fmt, inputs=[file])
        return None

    return on_spark(file, input_format, "csv", verbose, "counting on Spark", names, run)


CLASS_CURVES = ("roc", "pr")
"""The curves of one class against the rest."""


def _class_curves(file: str | None, truth: str | None, proba: str, input_format: str | None, na_values: str | None,
                  kind: str, class_: str | None, fmt: str, output: str | None) -> None:
    """``assay curves --proba`` of more than two classes: one class's one-vs-rest curve, or every class's."""
    from assay.evaluation.multiclass_ranking import rank_classes
    from assay.report.curves import curve_csv, curve_json

    if kind not in CLASS_CURVES:
        raise UserError(f"--kind {kind}: with --proba of more than two classes, --kind takes "
                        f"{' or '.join(CLASS_CURVES)} (one class against the rest)")
    data = read_predictions(file, truth, None, None, proba, input_format, na_values, allow=("proba",))
    try:
        ranking = rank_classes(data.truth, data.kwargs["y_proba"])
        if class_ is not None:
            label = ranking.summary(class_).labels[1]
            table = ranking.roc(label) if kind == "roc" else ranking.pr(label)
            emit(curve_csv(table) if fmt == "csv" else curve_json(table, kind=kind, positive=label), output)
            return
        tables = ranking.curves(kind)
    except InvalidInput as e:
        raise fail(e, {**NAMES, **data.names, "class": "--class"}) from None
    if fmt == "csv":
        pieces = []
        for i, (label, table) in enumerate(tables.items()):
            header, body = curve_csv(table).split("\n", 1)
            quoted = '"' + label.replace('"', '""') + '"' if any(ch in label for ch in ',"\n\r') else label
            if i == 0:
                pieces.append(f"class,{header}\n")
            pieces.extend(f"{quoted},{line}\n" for line in body.splitlines())
        emit("".join(pieces), output)
        return
    columns: dict[str, list] = {"class": []}
    for label, table in tables.items():
        part = json.loads(curve_json(table, kind=kind, positive=label))["columns"]
        columns["class"].extend([label] * len(next(iter(part.values()))))
        for name, values in part.items():
            columns.setdefault(name, []).extend(values)
    emit(json.dumps({"kind": kind, "positive": None, "classes": list(tables), "columns": columns}, indent=1,
                    allow_nan=False) + "\n", output)
