"""What every command shares: errors, output, and reading predictions from a table."""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import sys
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import click
from click.core import ParameterSource

from assay.errors import InvalidInput

__all__ = ["interrupted", "UserError", "fail", "emit", "render", "FORMATS", "CONTEXT", "Predictions", "read_predictions",
           "prediction_options", "output_options", "parse_pairs", "parse_range", "parse_size", "progress_bar",
           "picture_options", "engine_options", "write_pictures", "streams", "check_budget", "DEFAULT_MEMORY",
           "on_spark"]

FORMATS = ("text", "json", "markdown")
CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class UserError(Exception):
    """A mistake of the user's: printed as one line, exit status 2."""


DEFAULT_MEMORY = "2GB"
"""The memory budget when --memory is not given."""

WHOLE_TABLE_FACTOR = 8
"""A file is read whole when eight times its size fits in the budget (the columns read, their
conversions and the sorted keys hold several copies of it), else in batches. Measured here for CSV (2 cores,
`assay report FILE --truth y --score p --threshold 0.5`, best of 2; --memory 64MB to read in batches): 5·10^6
rows (63 MB) 1.8 s and 0.83 GB whole against 2.2 s and 0.37 GB in batches; 2·10^7 rows (253 MB, just within
the default 2 GB) 4.8 s and 1.83 GB whole against 4.9 s and 0.40 GB: as fast either way, so the budget decides.
Parquet, read faster in batches, has its own rule (``PARQUET_IN_BATCHES``)."""

PARQUET_IN_BATCHES = 16 * 1024**2
"""A Parquet file of scores larger than this (16 MB, about 3·10^6 rows of a float32 score and a label) is
read in batches whatever the budget: measured here (2 cores, `assay report FILE --truth y --score p`),
5·10^7 rows in one 235 MB file took 12.2 s and 0.87 GB of memory in batches against 28.5 s and 3.2 GB
read whole (5.3 s and 0.84 GiB since the report's one walk: docs/larger-than-memory.md); 5·10^6 rows
(24 MB) 5.1 s either way, 0.33 GB against 0.68; 10^6 rows (4.7 MB) 3.4 s in batches against 2.8 s whole."""

_interrupted = False


def on_interrupt(signum: int, frame: Any) -> None:
    """SIGINT: remember it, and raise KeyboardInterrupt where the program is.
    Python swallows an exception raised inside a finaliser (``__del__``, as numba's
    compiler runs them), so the flag lets the run notice a Ctrl-C that was lost there
    before it writes anything.
    """
    global _interrupted
    _interrupted = True
    raise KeyboardInterrupt


def interrupted() -> bool:
    """Whether a Ctrl-C came during this run (kept until :func:`reset_interrupt`)."""
    return _interrupted


def reset_interrupt() -> bool:
    """Forget a Ctrl-C (a new run starts); whether there was one."""
    global _interrupted
    was, _interrupted = _interrupted, False
    return was


def stop_if_interrupted() -> None:
    """Raise KeyboardInterrupt if a Ctrl-C came and was lost: called before any output is written."""
    if _interrupted:
        raise KeyboardInterrupt


def fail(err: InvalidInput, names: dict[str, str] | None = None) -> UserError:
    """The library's error, with its argument names turned into the user's options and columns."""
    return UserError(err.describe(names=names, one_based=True))


def emit(text: str | Iterable[str], output: str | None) -> None:
    """Write to a file atomically, or to standard output (a text, or its pieces one after another)."""
    stop_if_interrupted()
    if output:
        from assay.io.atomic import write_atomic

        try:
            write_atomic(output, text)
        except OSError as e:
            raise UserError(f"cannot write {output}: {e.strerror or e}") from None
        return
    for piece in [text] if isinstance(text, str) else text:
        click.echo(piece, nl=False)


CLI_WORDS = {"(choose with positive=)": "(choose with --positive)",
             "(threshold=T, or youden, closest or cost": "(--threshold T, or youden, closest or cost",
             'direction="lower"': "--direction lower",
             "(or name the other class positive)": "(or name the other class with --positive)"}
"""The library's words for its arguments, as the command line names its options."""


def in_cli_words(result: Any) -> Any:
    """The result with its notes, and those of the results it holds (its ranking's), naming the command
    line's options instead of Python's arguments."""

    if not dataclasses.is_dataclass(result) or isinstance(result, type):
        return result

    def words(note: str) -> str:
        for python, cli in CLI_WORDS.items():
            note = note.replace(python, cli)
        return note

    changes: dict[str, Any] = {}
    for f in dataclasses.fields(result):
        if not f.init:
            continue
        value = getattr(result, f.name)
        if f.name == "notes" and value:
            changes["notes"] = tuple(words(note) for note in value)
        elif dataclasses.is_dataclass(value) and getattr(value, "notes", None):
            changes[f.name] = in_cli_words(value)
    return dataclasses.replace(result, **changes) if changes else result


def render(result: Any, fmt: str, output: str | None, *, text: Callable[[bool, int | None], str],
           markdown: Callable[[], str] | None = None) -> None:
    """Render a result as text (coloured on a terminal), JSON or Markdown."""
    if fmt == "json":
        from assay.report.json import render_json

        emit(render_json(result), output)
    elif fmt == "csv":
        from assay.report.tidy import render_csv

        emit(render_csv(result), output)
    elif fmt == "markdown":
        if markdown is None:
            from assay.report.markdown import render_markdown

            emit(render_markdown(result), output)
        else:
            emit(markdown(), output)
    else:
        tty = output is None and sys.stdout.isatty()
        emit(text(tty, text_width(tty)), output)


def text_width(tty: bool) -> int | None:
    """The width text is laid out at: ``COLUMNS`` when set; on a terminal its width (at most 120, for
    reading); piped or to a file, None: lines are not wrapped."""
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if tty:
        return min(shutil.get_terminal_size((100, 24)).columns, 120)
    return None


def write_pictures(result: Any, html: str | None, plots: str | None) -> None:
    """The self-contained HTML report (written atomically: an existing file is replaced only when complete)
    and the plots as SVG and PNG files, when asked for."""
    from assay.errors import InvalidInput
    from assay.io.atomic import write_atomic

    stop_if_interrupted()
    if html:
        from assay.report.html import render_html

        page = render_html(result)
        try:
            write_atomic(html, page)
        except OSError as e:
            raise UserError(f"--html: cannot write {html}: {e.strerror or e}") from None
    if plots:
        from assay.report.plots import save_plots
        from assay.report.regression_plots import is_regression, save_regression_plots

        try:
            (save_regression_plots if is_regression(result) else save_plots)(result, plots)
        except OSError as e:
            raise UserError(f"--plots: cannot write to {plots}: {e.strerror or e}") from None
        except InvalidInput as e:
            raise UserError(f"--plots: {e}") from None


def picture_options(f: Callable) -> Callable:
    f = click.option("--plots", "plots", metavar="DIR",
                     help="Also write each plot (ROC, PR, gains, lift, calibration, confusion, cost, folds; with --by, "
                          "each metric by group and the ROC curves by group) to DIR as SVG and PNG.")(f)
    return click.option("--html", "html", metavar="PATH",
                        help="Also write a self-contained HTML report (plots, threshold explorer) to PATH.")(f)


def engine_options(memory: str, engine: str) -> Callable[[Callable], Callable]:
    """--memory, --engine and --verbose, declared once for the commands that read at any size; ``memory`` and
    ``engine`` are each command's own words for what they do there."""
    def apply(f: Callable) -> Callable:
        f = click.option("--verbose", is_flag=True, help="With --engine spark: show Spark's own log lines and "
                                                         "stage progress bars (quiet by default).")(f)
        f = click.option("--engine", type=click.Choice(["local", "spark"]), default="local", show_default=True,
                         help=engine)(f)
        return click.option("--memory", metavar="SIZE", callback=memory_option, help=memory)(f)

    return apply


def output_options(f: Callable) -> Callable:
    f = click.option("--output", "-o", metavar="PATH", help="Write to PATH (atomically) instead of stdout.")(f)
    return click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
                        help="text for people, json for machines, markdown for documents.")(f)


def table_output_options(f: Callable) -> Callable:
    """--output and --format with csv too: every estimate as a row (section, metric, group, value, low, high,
    method, note), the table of ``to_frame()``."""
    f = click.option("--output", "-o", metavar="PATH", help="Write to PATH (atomically) instead of stdout.")(f)
    return click.option("--format", "fmt", type=click.Choice([*FORMATS, "csv"]), default="text", show_default=True,
                        help="text for people, json for machines, markdown for documents, csv for a table of "
                             "every estimate (as to_frame()).")(f)


class ThresholdType(click.ParamType):
    """A threshold: a number, or a criterion that chooses one on the data (youden, closest, cost)."""
    name = "threshold"

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        if isinstance(value, (int, float)):
            return float(value)
        text = str(value).strip()
        if text.lower() in ("youden", "closest", "cost"):
            return text.lower()
        try:
            return float(text)
        except ValueError:
            self.fail(f"{value!r} is neither a number nor youden, closest or cost", param, ctx)


THRESHOLD = ThresholdType()


def _remember(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """Keep an option for the readers (read_predictions, dialect_options) without every command taking it."""
    if value is not None:
        ctx.meta[f"assay.{param.name}"] = value
    return value


def dialect_options() -> dict[str, str | None]:
    """--delimiter and --decimal as given on this command line (None: sniffed from the file)."""
    ctx = click.get_current_context(silent=True)
    meta = ctx.meta if ctx is not None else {}
    return {"delimiter": meta.get("assay.delimiter"), "decimal": meta.get("assay.decimal")}


def _delimiter(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is not None:
        value = {"tab": "\t", "\\t": "\t", "semicolon": ";", "comma": ","}.get(value, value)
        if len(value) != 1:
            raise click.BadParameter("one character, or tab, comma or semicolon", ctx=ctx, param=param)
    return _remember(ctx, param, value)


def prediction_options(f: Callable) -> Callable:
    """FILE, --truth and one of --pred/--score/--proba, --input-format, and CSV's --delimiter and --decimal."""
    return _prediction_options(f, multiple=False)


def predictions_options(f: Callable) -> Callable:
    """As :func:`prediction_options`, with --pred and --score repeatable (several models' columns)."""
    return _prediction_options(f, multiple=True)


def _prediction_options(f: Callable, *, multiple: bool) -> Callable:
    more = " (repeatable: one per model)" if multiple else ""
    for decorator in reversed([
        click.argument("file", required=False, metavar="FILE"),
        click.option("--truth", metavar="COL", help="Column of actual classes."),
        click.option("--pred", metavar="COL", multiple=multiple, help="Column of predicted classes" + more + "."),
        click.option("--score", metavar="COL", multiple=multiple,
                     help="Column of scores or probabilities of the positive class" + more + "."),
        click.option("--proba", metavar="COLS", help="Comma-separated probability columns, each named by its class."),
        click.option("--input-format", type=click.Choice(["csv", "tsv", "parquet", "jsonl"]),
                     help="Format of FILE (default: from its extension or content; compressed files are "
                          "recognised by their first bytes)."),
        click.option("--na-values", metavar="LIST",
                     help="Comma-separated cells of a CSV that mean a missing value (default: empty, NA, N/A, "
                          "NaN, nan, null, NULL, #N/A and the like; --na-values '' leaves only empty cells "
                          "missing, so that a class may be called NA)."),
        click.option("--delimiter", metavar="CHAR", expose_value=False, callback=_delimiter,
                     help="CSV delimiter (default: sniffed from the header: comma, semicolon, tab or bar)."),
        click.option("--decimal", type=click.Choice([".", ","]), expose_value=False, callback=_remember,
                     help="CSV decimal mark (default: a comma when the file is not comma-separated and its "
                          "numbers are written 0,93)."),
    ]):
        f = decorator(f)
    return f


@dataclass
class Predictions:
    """Columns read for one evaluation: keyword arguments for the library, and how to name them."""
    truth: Any
    kwargs: dict[str, Any]
    names: dict[str, str]
    source: dict[str, Any]
    score_name: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def _split_columns(value: str) -> list[str]:
    return [c.strip() for c in value.split(",") if c.strip()]


def proba_pairs(value: str) -> dict[str, str]:
    """--proba's classes and their columns: 'a,b,c' (columns named after their classes) or
    'benign=p0,malignant=p1' (class=column pairs), mixed as needed."""
    pairs: dict[str, str] = {}
    for item in _split_columns(value):
        label, sep, column = item.partition("=")
        label, column = (label.strip(), column.strip()) if sep else (item, item)
        if not label or not column:
            raise UserError(f"--proba: {item!r} is not a column nor a class=column pair")
        if label in pairs:
            raise UserError(f"--proba: the class {label!r} is given twice")
        pairs[label] = column
    if len(pairs) < 2:
        raise UserError("--proba needs at least two comma-separated columns (or class=column pairs), one per class")
    return pairs


def read_predictions(file: str | None, truth: str | None, pred: str | None, score: str | None, proba: str | None,
                     input_format: str | None, na_values: str | None = None, *,
                     allow: tuple[str, ...] = ("pred", "score", "proba"),
                     truth_as_text: bool = True, extra_columns: tuple[str, ...] = ()) -> Predictions:
    """Read FILE's truth and prediction columns, with one-line errors for every mistake."""
    if file is None:
        raise UserError("give a FILE of predictions (or - for standard input)")
    if truth is None:
        raise UserError("--truth COL is required: the column of actual values")
    kinds = {"pred": pred, "score": score, "proba": proba}
    given = [f"--{k}" for k, v in kinds.items() if v]
    if len(given) != 1:
        flags = [f"--{k}" for k in allow]
        options = flags[0] if len(flags) == 1 else ", ".join(flags[:-1]) + " or " + flags[-1]
        raise UserError(f"give exactly one of {options}" + (f" (got {' and '.join(given)})" if given else ""))
    kind = given[0][2:]
    if kind not in allow:
        raise UserError(f"--{kind} does not apply here; give " + " or ".join(f"--{k}" for k in allow))
    from assay.io.tables import read_columns

    proba_classes = proba_pairs(proba) if proba else {}
    proba_columns = list(proba_classes.values())
    text_cols = ([truth] if truth_as_text else []) + ([pred] if pred and truth_as_text else [])
    number_cols = ([] if truth_as_text else [truth]) + ([pred] if pred and not truth_as_text else []) + \
        ([score] if score else []) + proba_columns
    try:
        data = read_columns(file, text_columns=text_cols, number_columns=number_cols + list(extra_columns),
                            format=input_format, na_values=parse_na_values(na_values), **dialect_options())
    except InvalidInput as e:
        raise fail(e, {"format": "--input-format"}) from None
    names = {"y_true": f"column {truth!r}"}
    kwargs: dict[str, Any] = {}
    if pred:
        kwargs["y_pred"] = data.columns[pred]
        names["y_pred"] = f"column {pred!r}"
    elif score:
        kwargs["y_score"] = data.columns[score]
        names["y_score"] = f"column {score!r}"
    else:
        kwargs["y_proba"] = {label: data.columns[c] for label, c in proba_classes.items()}
        for label, c in proba_classes.items():
            names[f"y_proba[{label!r}]"] = f"column {c!r}"
        names["y_proba"] = "--proba"
    source = {"file": data.source, "truth": truth, "pred": pred, "score": score, "proba": proba_columns or None}
    return Predictions(data.columns[truth], kwargs, names, {k: v for k, v in source.items() if v is not None},
                       score_name=score, extra={c: data.columns[c] for c in extra_columns})


def parse_na_values(value: str | None) -> list[str] | None:
    """'NA,-' -> ['', 'NA', '-'] (an empty cell always means missing); None keeps the default."""
    if value is None:
        return None
    return list(dict.fromkeys(["", *(v.strip() for v in value.split(","))]))


_UNITS = {"": 1, "B": 1, "K": 1 << 10, "KB": 1 << 10, "KIB": 1 << 10, "M": 1 << 20, "MB": 1 << 20, "MIB": 1 << 20,
          "G": 1 << 30, "GB": 1 << 30, "GIB": 1 << 30, "T": 1 << 40, "TB": 1 << 40, "TIB": 1 << 40}


def parse_size(value: str, option: str) -> int:
    """'2GB' -> 2147483648 bytes (K, M, G, T in powers of 1024; B or nothing for bytes)."""
    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([A-Za-z]*)\s*", value)
    unit = match.group(2).upper() if match else ""
    if match is None or unit not in _UNITS or float(match.group(1)) <= 0:
        raise UserError(f"{option}: {value!r} is not a size such as 500MB or 2GB")
    size = int(float(match.group(1)) * _UNITS[unit])
    if size < 1:
        raise UserError(f"{option}: {value!r} is less than a byte; give a size such as 500MB or 2GB")
    return size


def memory_option(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """--memory read as a size when it is given (an empty one is refused, not taken as the default); its
    smallest value is checked where the input is known (:func:`assay.engines.files.check_memory`)."""
    if value is not None:
        parse_size(value, "--memory")
    return value


def progress_bar(fmt: str, what: str) -> tuple[Any, Callable[[int, int | None], None] | None]:
    """A progress bar on a terminal for text output (rows read of rows expected, when known); nothing when
    piped or for JSON."""
    if fmt != "text" or not sys.stderr.isatty():
        return None, None
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        Progress,
        ProgressColumn,
        TextColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class Rows(ProgressColumn):
        """Rows read, of rows expected when known (never "0/?")."""
        def render(self, task: Any) -> Text:
            done = f"{int(task.completed):,}"
            return Text(f"{done} of {int(task.total):,} rows" if task.total else f"{done} rows")

    bar = Progress(TextColumn(what), BarColumn(), Rows(), TimeRemainingColumn(), transient=True,
                   console=Console(stderr=True))
    task = bar.add_task(what, total=None)

    def update(done: int, total: int | None) -> None:
        bar.update(task, completed=done, total=total)

    return bar, update


def parse_pairs(value: str | None, option: str, *, keys: tuple[str, ...] | None = None) -> dict[str, float] | None:
    """'fp=1,fn=10' -> {'fp': 1.0, 'fn': 10.0}; a one-line error naming the option otherwise."""
    if value is None:
        return None
    out: dict[str, float] = {}
    for part in value.split(","):
        if not part.strip():
            continue
        key, sep, number = part.partition("=")
        key = key.strip()
        if not sep or not key:
            raise UserError(f"{option}: {part.strip()!r} is not of the form name=number")
        if keys is not None and key not in keys:
            raise UserError(f"{option}: {key!r} is not one of {', '.join(keys)}")
        if key in out:
            raise UserError(f"{option}: {key!r} is given twice")
        try:
            out[key] = float(number)
        except ValueError:
            raise UserError(f"{option}: {number.strip()!r} is not a number") from None
    if not out:
        raise UserError(f"{option}: give name=number pairs, e.g. {option} fp=1,fn=10")
    return out


def parse_range(value: str | None, option: str) -> tuple[float, float] | None:
    """'0,0.2' -> (0.0, 0.2)."""
    if value is None:
        return None
    parts = value.split(",")
    try:
        low, high = (float(p) for p in parts)
    except ValueError:
        raise UserError(f"{option}: {value!r} is not two comma-separated numbers, e.g. 0,0.2") from None
    return low, high


def named_on_command_line(params: Iterable[str]) -> list[str]:
    """The parameters of the running command that its user gave (not left at their default), in order."""
    ctx = click.get_current_context()
    return [p for p in params if ctx.get_parameter_source(p) not in (None, ParameterSource.DEFAULT)]


def streams(file: str, memory: str | None, *, scores: bool = False) -> bool:
    """Whether FILE is read in batches: a directory, a glob, a file too large for the memory budget (the
    whole-table path holds several copies of the columns it reads), or, for ``scores`` (two-class scores,
    nothing that needs the whole table), a Parquet file larger than ``PARQUET_IN_BATCHES``, which reads
    faster and lighter in batches. A budget too small for data read in batches is refused here, before
    anything is read."""

    if file == "-":
        return False
    budget = parse_size(DEFAULT_MEMORY if memory is None else memory, "--memory")
    if os.path.isdir(file) or (any(c in file for c in "*?[") and not os.path.exists(file)):
        check_budget(file, memory, budget)
        return True
    try:
        size = os.path.getsize(file)
    except OSError:
        return False
    streams = size * WHOLE_TABLE_FACTOR > budget or (scores and size > PARQUET_IN_BATCHES and _is_parquet(file))
    if streams:
        check_budget(file, memory, budget)
    return streams


def _is_parquet(file: str) -> bool:
    from assay.io.tables import detect_format

    try:
        return detect_format(file) == "parquet"
    except (InvalidInput, OSError):
        return False


def check_budget(file: str, memory: str | None, budget: int, *, remote: bool = False) -> None:
    """--memory at least what a run in batches needs (any budget for a small input). ``remote``: FILE may
    be a path only Spark reads (its size unknown here): then the minimum holds whatever its size."""

    from assay.engines.files import MIN_MEMORY, check_memory
    from assay.io.batches import parts_of

    try:
        size = sum(os.path.getsize(part) for part in parts_of(file))
    except (InvalidInput, OSError):
        if not remote:
            return  # reading will say what is wrong with FILE
        size = MIN_MEMORY
    try:
        check_memory(budget, size)
    except InvalidInput:
        raise UserError(f"--memory {memory} is below the smallest budget for data read in batches: give at least "
                        f"{MIN_MEMORY >> 20}MB (it covers the blocks read and the score summary; see --help)") from None


def on_spark(file: str, input_format: str | None, fmt: str, verbose: bool, what: str, names: dict[str, str],
             run: Callable[[Any, Callable[[int, int | None], None] | None], Any]) -> Any:
    """FILE read by Spark (the session of spark-submit, or a local one) and ``run(df, progress)``: a local
    path is checked before Spark starts; Spark is quiet unless --verbose; assay's progress bar instead
    (``what`` it says); an error in one line with ``names`` for the options."""
    from assay.engines import spark as engine

    given = named_on_command_line(("na_values", "delimiter", "decimal"))
    if given:  # Spark reads CSV with its own reader: these would be ignored
        flag = "--" + given[0].replace("_", "-")
        raise UserError(f"{flag} applies to files read by assay; Spark reads CSV with its own reader (a header "
                        "line, commas, empty cells missing): leave out --engine spark, or convert the file")
    names = {**names, "format": "--input-format", "format=": "--input-format"}
    bar = None
    try:
        with warnings.catch_warnings():
            if not verbose:  # pyspark's own advice (pandas 3, ...): Spark's log, shown with --verbose
                warnings.filterwarnings("ignore", module=r"pyspark\b")
                warnings.filterwarnings("ignore", message=r"PySpark ")
            engine.check_path(file, format=input_format)
            bar, _ = progress_bar(fmt, "starting Spark")
            if bar is not None:
                bar.start()
            session = engine.session(verbose=verbose)
            if bar is not None:
                bar.stop()
            bar, update = progress_bar(fmt, what)
            if bar is not None:
                bar.start()
            return run(engine.read(session, file, format=input_format), update)
    except InvalidInput as e:
        raise fail(e, names) from None
    finally:
        if bar is not None:
            bar.stop()
