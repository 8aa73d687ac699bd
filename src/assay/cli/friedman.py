"""``assay friedman``: many models over many data sets (Friedman, Iman-Davenport, Nemenyi; Demšar 2006)."""

from __future__ import annotations

import math
from typing import Any

import click

from assay.cli.common import CONTEXT, UserError, fail, output_options, render
from assay.errors import InvalidInput

__all__ = ["register", "read_score_table"]


def register(cli: click.Group) -> None:
    cli.add_command(friedman)


@click.command(context_settings=CONTEXT)
@click.argument("table", metavar="TABLE")
@click.option("--lower-is-better", is_flag=True,
              help="The scores are errors or losses: the lowest is the best (default: the highest, as accuracy).")
@click.option("--confidence", type=float, default=0.95, show_default=True,
              help="Confidence level of the tests and of the critical difference (alpha = 1 - confidence).")
@click.option("--no-tie-correction", is_flag=True,
              help="Friedman's statistic without the correction for ties, as Demšar (2006) prints it.")
@click.option("--html", metavar="FILE",
              help="Also write the report as one self-contained HTML page, with the critical-difference diagram.")
@click.option("--plots", "plots", metavar="DIR",
              help="Also write the critical-difference diagram to DIR as SVG and PNG.")
@output_options
def friedman(table: str, lower_is_better: bool, confidence: float, no_tie_correction: bool, html: str | None,
             plots: str | None,
             fmt: str, output: str | None) -> None:
    """Compare several models over several data sets: which are better, honestly.

    TABLE is a CSV file: one row per data set (the first column names it), one column
    per model, each cell the model's score on the data set (accuracy, AUC, ... or,
    with --lower-is-better, an error rate or a loss). The models are ranked on each
    data set; Friedman's test (and Iman and Davenport's F) says whether their average
    ranks differ, and the Nemenyi test which pairs do, by more than the critical
    difference CD. The critical-difference diagram shows it.

    \b
    Examples:
      assay friedman auc.csv
      assay friedman errors.csv --lower-is-better --confidence 0.9
      assay friedman auc.csv --format markdown -o ranks.md --plots figures/
    """
    from assay.inference.friedman import friedman_nemenyi
    from assay.report.friedman import friedman_markdown, friedman_text

    models, datasets, values = read_score_table(table)
    try:
        result = friedman_nemenyi(values, models=models, datasets=datasets,
                                  better="lower" if lower_is_better else "higher", confidence=confidence,
                                  tie_correction=not no_tie_correction)
    except InvalidInput as e:
        raise fail(e, {"confidence": "--confidence", "scores": table, "models": "the header",
                       "datasets": "the first column"}) from None
    if html:
        from assay.cli.common import write_pictures

        write_pictures(result, html, None)
    render(result, fmt, output, text=lambda tty, width: friedman_text(result, color=tty, width=width),
           markdown=lambda: friedman_markdown(result))
    if plots:
        from assay.cli.common import stop_if_interrupted
        from assay.report.cd_plot import save_cd_plot

        stop_if_interrupted()
        try:
            save_cd_plot(result, plots)
        except OSError as e:
            raise UserError(f"--plots: cannot write to {plots}: {e.strerror or e}") from None
        except InvalidInput as e:
            raise UserError(f"--plots: {e}") from None


def read_score_table(path: str) -> tuple[list[str], list[str], list[list[float]]]:
    """(models, data sets, scores) of a CSV table: the first column names the data sets, the others are the
    models; a one-line error naming the row and the column for a cell that is missing or not a number."""
    from assay.io.tables import read_table

    try:
        data = read_table(path)
    except InvalidInput as e:
        raise fail(e) from None
    names = list(data.columns)
    if len(names) < 3:
        raise UserError(f"{data.source}: needs a first column naming the data sets and at least 2 columns of "
                        f"models' scores, got {len(names)} column{'' if len(names) == 1 else 's'}")
    if data.n_rows < 2:
        raise UserError(f"{data.source}: needs at least 2 data sets (rows), got {data.n_rows}")
    first = data.columns[names[0]].to_pylist()
    datasets = [str(v) if v is not None else f"row {i + 1}" for i, v in enumerate(first)]
    rows: list[list[float]] = [[] for _ in range(data.n_rows)]
    for model in names[1:]:
        for i, cell in enumerate(data.columns[model].to_pylist()):
            rows[i].append(_number(cell, model, i, datasets[i], data.source))
    return names[1:], datasets, rows


def _number(cell: Any, column: str, i: int, dataset: str, source: str) -> float:
    where = f"{source}: column {column!r} row {i + 1} (data set {dataset!r})"
    if cell is None:
        raise UserError(f"{where}: the score is missing")
    if isinstance(cell, bool):
        raise UserError(f"{where}: {cell!r} is not a number")
    if isinstance(cell, (int, float)):
        value = float(cell)
    else:
        try:
            value = float(str(cell).strip())
        except ValueError:
            raise UserError(f"{where}: {str(cell)!r} is not a number") from None
    if math.isnan(value):
        raise UserError(f"{where}: the score is missing")
    if not math.isfinite(value):
        raise UserError(f"{where}: {str(cell)!r} is not a finite number")
    return value
