"""The ``assay`` command: parse -> call the library -> render -> exit code.

Exit status 0 on success and 2 on bad usage or bad input, with one line on
standard error that names what is wrong (column, row, value). Nothing here
computes a number.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

import click

from assay import __version__
from assay.errors import InvalidInput

__all__ = ["main", "cli"]


class UserError(Exception):
    """A mistake of the user's: printed as one line, exit status 2."""


FORMATS = ("text", "json", "markdown")


def _fail(err: InvalidInput, names: dict[str, str] | None = None) -> UserError:
    return UserError(err.describe(names=names, one_based=True))


def _emit(text: str, output: str | None) -> None:
    """Write to a file atomically, or to standard output."""
    if output:
        from assay.io.atomic import write_atomic

        try:
            write_atomic(output, text)
        except OSError as e:
            raise UserError(f"cannot write {output}: {e.strerror or e}") from None
        return
    click.echo(text, nl=False)


def _render(result: Any, fmt: str, output: str | None, *, text: Callable[[bool, int | None], str]) -> None:
    if fmt == "json":
        from assay.report.json import render_json

        _emit(render_json(result), output)
    elif fmt == "markdown":
        from assay.report.markdown import render_markdown

        _emit(render_markdown(result), output)
    else:
        tty = output is None and sys.stdout.isatty()
        width = None
        if tty:
            import shutil

            width = min(shutil.get_terminal_size((100, 24)).columns, 120)
        _emit(text(tty, width), output)


CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(context_settings=CONTEXT)
@click.version_option(__version__, prog_name="assay")
def cli() -> None:
    """assay: honest numbers for classifiers.

    Every figure with its confidence interval, every comparison with a test.

    \b
    Start with:
      assay demo                      the whole job on a bundled real data set
      assay report preds.csv --truth y --pred yhat
      assay interval --successes 80 --n 100
    """


# ---------------------------------------------------------------------------
# report


def _split_columns(value: str) -> list[str]:
    return [c.strip() for c in value.split(",") if c.strip()]


@cli.command(context_settings=CONTEXT)
@click.argument("file", required=False, metavar="FILE")
@click.option("--truth", metavar="COL", help="Column of actual classes.")
@click.option("--pred", metavar="COL", help="Column of predicted classes.")
@click.option("--score", metavar="COL", help="Column of scores or probabilities of the positive class.")
@click.option("--proba", metavar="COLS", help="Comma-separated probability columns, each named by its class.")
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
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option("--output", "-o", metavar="PATH", help="Write the report to PATH (atomically) instead of stdout.")
@click.option("--input-format", type=click.Choice(["csv", "tsv", "parquet", "jsonl"]),
              help="Format of FILE (default: from its extension or content).")
def report(
    file: str | None,
    truth: str | None,
    pred: str | None,
    score: str | None,
    proba: str | None,
    confusion_file: str | None,
    positive: str | None,
    threshold: float | None,
    confidence: float,
    interval: str,
    beta: float,
    bootstrap: int,
    seed: int,
    fmt: str,
    output: str | None,
    input_format: str | None,
) -> None:
    """Evaluate predictions: the confusion matrix, every metric with its interval, the tests.

    FILE is a table of predictions (CSV, TSV, Parquet or JSON lines; - for standard
    input) with a column of actual classes (--truth) and one of: predicted classes
    (--pred), positive-class scores (--score, thresholded at --threshold) or one
    probability column per class (--proba). Or give --confusion with a matrix.

    \b
    Examples:
      assay report preds.csv --truth y --pred yhat
      assay report preds.csv --truth y --score p --threshold 0.3 --positive yes
      assay report preds.csv --truth y --proba setosa,versicolor,virginica --format json
      assay report --confusion matrix.csv --positive pos
      cat preds.csv | assay report - --truth y --pred yhat --format markdown
    """
    from assay.evaluation import evaluate, evaluate_confusion

    options = {"confidence": confidence, "interval": interval, "beta": beta, "bootstrap": bootstrap, "seed": seed}
    names = {"positive": "--positive", "threshold": "--threshold", "confidence": "--confidence",
             "beta": "--beta", "bootstrap": "--bootstrap", "labels": "--proba"}
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
            raise _fail(e, names) from None
        source: dict[str, Any] = {"confusion": "standard input" if confusion_file == "-" else confusion_file}
    else:
        if file is None:
            raise UserError("give a FILE of predictions (or - for standard input), or --confusion FILE")
        if truth is None:
            raise UserError("--truth COL is required: the column of actual classes")
        given = [name for name, v in (("--pred", pred), ("--score", score), ("--proba", proba)) if v]
        if len(given) != 1:
            raise UserError("give exactly one of --pred, --score or --proba" +
                            (f" (got {' and '.join(given)})" if given else ""))
        from assay.io.tables import read_columns

        proba_columns = _split_columns(proba) if proba else []
        if proba is not None and len(proba_columns) < 2:
            raise UserError("--proba needs at least two comma-separated columns, one per class")
        text_cols = [truth] + ([pred] if pred else [])
        number_cols = ([score] if score else []) + proba_columns
        try:
            data = read_columns(file, text_columns=text_cols, number_columns=number_cols, format=input_format)
        except InvalidInput as e:
            raise _fail(e, {"format": "--input-format"}) from None
        names.update({"y_true": f"column {truth!r}"})
        kwargs: dict[str, Any] = {}
        if pred:
            kwargs["y_pred"] = data.columns[pred]
            names["y_pred"] = f"column {pred!r}"
        elif score:
            kwargs["y_score"] = data.columns[score]
            names["y_score"] = f"column {score!r}"
        else:
            kwargs["y_proba"] = {c: data.columns[c] for c in proba_columns}
            for c in proba_columns:
                names[f"y_proba[{c!r}]"] = f"column {c!r}"
            names["y_proba columns"] = "--proba"
        try:
            result = evaluate(data.columns[truth], positive=positive, threshold=threshold, score_name=score,
                              **kwargs, **options)
        except InvalidInput as e:
            raise _fail(e, names) from None
        source = {"file": data.source, "truth": truth, "pred": pred, "score": score,
                  "proba": proba_columns or None}
    from dataclasses import replace

    result = replace(result, source={k: v for k, v in source.items() if v is not None})
    from assay.report.text import render_text

    _render(result, fmt, output, text=lambda tty, width: render_text(result, color=tty, width=width))


# ---------------------------------------------------------------------------
# interval


@cli.command(context_settings=CONTEXT)
@click.option("--successes", "-k", type=int, metavar="K", help="Number of successes (e.g. correct predictions).")
@click.option("--rate", type=float, metavar="F", help="Instead of K: the observed rate, with K = F x N whole.")
@click.option("--n", "-n", "n", type=int, required=True, metavar="N", help="Number of trials (test set size).")
@click.option("--confidence", type=float, default=0.95, show_default=True)
@click.option("--method", type=click.Choice(["wilson", "clopper-pearson", "agresti-coull", "jeffreys", "normal"]),
              default="wilson", show_default=True)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option("--output", "-o", metavar="PATH", help="Write to PATH (atomically) instead of stdout.")
def interval(successes: int | None, rate: float | None, n: int, confidence: float, method: str, fmt: str,
             output: str | None) -> None:
    """Confidence interval of a proportion: K successes out of N.

    \b
    Examples (seeds 002 and 004):
      assay interval --successes 80 --n 100                 accuracy 80% on 100 instances
      assay interval --rate 0.25 --n 1000 --confidence 0.8  error rate 25% on 1000, at 80%
      assay interval -k 40 -n 50 --method clopper-pearson --format json
    """
    from assay.inference.proportion import proportion_ci
    from assay.report.calculators import render_interval_text

    if (successes is None) == (rate is None):
        raise UserError("give exactly one of --successes K or --rate F")
    if rate is not None:
        k = rate * n
        if abs(k - round(k)) > 1e-9 * max(1, n):
            raise UserError(f"--rate {rate:g} x --n {n} = {k:g} is not a whole number of successes")
        successes = int(round(k))
    try:
        result = proportion_ci(successes, n, confidence=confidence, method=method)  # type: ignore[arg-type]
    except InvalidInput as e:
        raise _fail(e, {"successes": "--successes", "n": "--n", "confidence": "--confidence"}) from None
    _render(result, fmt, output, text=lambda tty, width: render_interval_text(result, color=tty))


# ---------------------------------------------------------------------------
# demo


@cli.command(context_settings=CONTEXT)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the split and the bootstrap.")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option("--output", "-o", metavar="PATH", help="Write to PATH (atomically) instead of stdout.")
def demo(seed: int, fmt: str, output: str | None) -> None:
    """The main job on a bundled real data set, no input needed.

    Logistic regression on the Wisconsin breast cancer data (569 tumours),
    trained on a stratified two thirds and evaluated on the held-out third.

    \b
    Example:
      assay demo
    """
    from dataclasses import replace

    from assay.protocols.demo import run_demo
    from assay.report.text import render_text

    result = run_demo(seed=seed)
    result = replace(result, source={"demo": "logistic regression, breast-cancer, stratified holdout 1/3"})
    _render(result, fmt, output, text=lambda tty, width: render_text(result, color=tty, width=width))


# ---------------------------------------------------------------------------
# entry point


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns (and exits with) the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        cli.main(args=args, prog_name="assay", standalone_mode=False)
        status = 0
    except UserError as e:
        click.echo(f"assay: error: {e}", err=True)
        status = 2
    except click.exceptions.NoArgsIsHelpError as e:
        click.echo(e.ctx.get_help() if e.ctx else str(e))
        status = 0
    except click.UsageError as e:
        hint = f" (see: {e.ctx.command_path} --help)" if e.ctx else ""
        click.echo(f"assay: error: {e.format_message()}{hint}", err=True)
        status = 2
    except click.ClickException as e:
        click.echo(f"assay: error: {e.format_message()}", err=True)
        status = 2
    except click.exceptions.Abort:
        click.echo("assay: aborted", err=True)
        status = 130
    except click.exceptions.Exit as e:
        status = e.exit_code
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        status = 0
    if argv is None:
        sys.exit(status)
    return status


if __name__ == "__main__":  # pragma: no cover
    main()
