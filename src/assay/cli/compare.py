"""``assay compare``: two or more models' predictions, paired on the same instances (or two independent files)."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

import click

from assay.cli.common import (
    CONTEXT,
    DEFAULT_MEMORY,
    UserError,
    check_budget,
    dialect_options,
    engine_options,
    fail,
    named_on_command_line,
    on_spark,
    output_options,
    parse_na_values,
    parse_size,
    picture_options,
    predictions_options,
    progress_bar,
    read_predictions,
    render,
    streams,
    write_pictures,
)
from assay.cli.options import FLAG_NAMES, options_of
from assay.errors import InvalidInput

__all__ = ["register"]


def register(cli: click.Group) -> None:
    cli.add_command(compare)


def _align(a: Any, b: Any, id_column: str | None, names: tuple[str, str]) -> tuple[Any, Any, Any]:
    """B's columns reordered to A's instances (by id, else by row); the truths must agree."""
    import numpy as np
    import pyarrow as pa

    from assay.inputs import encode_labels

    n_a, n_b = len(a.truth), len(b.truth)
    if id_column is not None:
        ids_a = a.extra[id_column].to_pylist()
        ids_b = b.extra[id_column].to_pylist()
        position = {}
        for i, v in enumerate(ids_b):
            if v in position:
                raise UserError(f"{names[1]}: column {id_column!r} row {i + 1}: id {v!r} repeats")
            position[v] = i
        seen = set()
        order = []
        for i, v in enumerate(ids_a):
            if v in seen:
                raise UserError(f"{names[0]}: column {id_column!r} row {i + 1}: id {v!r} repeats")
            seen.add(v)
            if v not in position:
                raise UserError(f"{names[0]}: column {id_column!r} row {i + 1}: id {v!r} is not in {names[1]}")
            order.append(position[v])
        if len(order) != n_b:
            missing = next(v for v in ids_b if v not in seen)
            raise UserError(f"{names[1]}: id {missing!r} is not in {names[0]}")
        index = pa.array(np.asarray(order, dtype=np.int64))
        b.truth = b.truth.take(index)
        b.kwargs = {k: ({c: col.take(index) for c, col in v.items()} if isinstance(v, dict) else v.take(index))
                    for k, v in b.kwargs.items()}
    elif n_a != n_b:
        raise UserError(f"{names[0]} has {n_a:,} rows and {names[1]} {n_b:,}: pair them with --id COL, or "
                        "give --unpaired for independent test sets")
    try:
        enc = encode_labels({"A": a.truth, "B": b.truth})
    except InvalidInput as e:
        raise fail(e, {"A": f"{names[0]}: column {a.source['truth']!r}",
                       "B": f"{names[1]}: column {b.source['truth']!r}"}) from None
    differ = np.flatnonzero(enc.codes["A"] != enc.codes["B"])
    if differ.size:
        i = int(differ[0])
        ta, tb = enc.labels[enc.codes["A"][i]], enc.labels[enc.codes["B"][i]]
        where = f"row {i + 1} of {names[0]}" if id_column is None else \
            f"id {a.extra[id_column][i].as_py()!r}"
        raise UserError(f"the truths differ at {where}: {ta!r} in {names[0]}, {tb!r} in {names[1]} "
                        "(a paired comparison needs the same instances)")
    return a, b, enc


@click.command(context_settings=CONTEXT)
@click.argument("files", metavar="FILES...", nargs=-1, required=True)
@predictions_options
@click.option("--id", "id_column", metavar="COL", help="Join the files on this column (else by row).")
@click.option("--name", "names", multiple=True, metavar="NAME",
              help="The models' names, one --name per model in order (default: the file names, or the columns of "
                   "one file).")
@click.option("--unpaired", is_flag=True,
              help="The two files are independent test sets (the difference of two error rates, Mitchell ch. 5; "
                   "with scores, the unpaired test of the AUCs, as pROC's roc.test(paired = FALSE)).")
@click.option("--costs", metavar="fp=C,fn=C",
              help="Costs of the outcomes, for the optimal model and threshold on the combined ROC hull "
                   "(default: both errors cost 1).")
@click.option("--prevalence", type=float, metavar="P",
              help="Share of positives where the models will be used, for the optimal choice (default: the data's).")
@click.option("--adjust", type=click.Choice(["holm", "bonferroni", "none"]), default="holm", show_default=True,
              help="With three or more models: how the pairwise p-values are adjusted for multiple comparisons.")
@click.option("--auc-test", type=click.Choice(["delong", "bootstrap"]), default="delong", show_default=True,
              help="With --unpaired and scores: DeLong's test of the two AUCs, or the bootstrap's.")
@click.option("--positive", metavar="LABEL", help="The positive class of a two-class problem.")
@click.option("--net-benefit", is_flag=True,
              help="Models given as probabilities: each pair's decision curves and the difference of their net "
                   "benefits along them with a paired bootstrap interval (with --prevalence: a case-control sample).")
@click.option("--thresholds-range", metavar="LOW,HIGH[,STEP]",
              help="Threshold probabilities of the decision curves (default 0.01,0.99,0.01; implies --net-benefit).")
@click.option("--threshold", type=float, metavar="T", help="Positive iff score >= T (default 0.5).")
@click.option("--direction", type=click.Choice(["higher", "lower", "auto"]), default="higher", show_default=True,
              help="With --score, for every model: which scores mean the positive class, lower (positive iff score "
                   "<= T; the AUCs rank lower scores first) or auto (chosen per model on the data as pROC does; "
                   "biases the AUC upward).")
@click.option("--confidence", type=float, default=0.95, show_default=True)
@click.option("--bootstrap", type=int, default=2000, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@engine_options(
    memory=(
        "Memory budget (default 2GB) for one FILE with a column per model: a FILE larger than an eighth of it"
        " (a Parquet FILE of --score over 16MB), a directory of parts or a glob is read in batches, exactly "
        "(scores twice: the models' summaries, then DeLong's paired test); score summaries beyond it go to "
        "TMPDIR."),
    engine=(
        "spark: one FILE, DIR or GLOB (a path Spark reads: local, hdfs://, s3a://) with a column per model, "
        "compared by Spark (pip install 'assay[spark]'): the same tests, exact; the rows stay on the "
        "executors."),
)
@picture_options
@output_options
def compare(files: tuple[str, ...], truth: str | None, pred: tuple[str, ...], score: tuple[str, ...],
            proba: str | None, input_format: str | None, na_values: str | None, id_column: str | None,
            names: tuple[str, ...], unpaired: bool, adjust: str, costs: str | None, prevalence: float | None, auc_test: str,
            positive: str | None, net_benefit: bool, thresholds_range: str | None, threshold: float | None, direction: str, confidence: float, bootstrap: int,
            seed: int, memory: str | None, engine: str, verbose: bool, html: str | None, plots: str | None, fmt: str, output: str | None) -> None:
    """Compare two or more classifiers' predictions: is one really better?
    FILES are prediction files with the same columns (--truth and one of --pred,
    --score or --proba), such as those `assay validate --predictions DIR` writes;
    or one file with a column of predictions per model (--pred a --pred b, or
    --score a --score b, and so on).
    One FILE, DIR or GLOB with a column per model is read in batches when it is
    a directory, a glob, or too large for --memory: the same tests, exact, at any
    size (labels in one pass, scores in two).
    Paired (the default): the same instances, joined on --id or by row; McNemar's
    test, a paired bootstrap of the accuracy difference, and DeLong's test of the
    AUCs when both have scores. With three models or more: Cochran's Q test that
    all are equally accurate, and those tests for every pair, their p-values
    adjusted by Holm's method. --unpaired (two files): independent test sets; the
    interval of the difference of the error rates and the confidence at which it
    is significant.

    \b
    Examples:
      assay compare tree.csv bayes.csv --truth truth --pred predicted
      assay compare tree.csv bayes.csv --truth y --score p --id id --format json
      assay compare lab.csv field.csv --truth y --pred yhat --unpaired
      assay compare cohort1.csv cohort2.csv --truth outcome --score marker --unpaired
      assay compare preds.csv --truth y --score p_forest --score p_logistic
      assay compare preds.csv --truth y --score p_forest --score p_logistic --net-benefit
      assay compare preds.csv --truth y --pred tree --pred forest --pred knn
      assay compare logs/ --truth clicked --score p_new --score p_old --memory 1GB
      assay compare s3a://bucket/logs/ --truth y --score p_new --score p_old --engine spark
      assay compare tree.csv forest.csv knn.csv --truth y --pred predicted --id id
    """
    from assay.evaluation.comparison import compare as paired
    from assay.evaluation.comparison import compare_unpaired
    from assay.evaluation.evaluate import evaluate
    from assay.report.comparison import comparison_document
    from assay.report.markdown import render_blocks_markdown
    from assay.report.text import render_blocks_text

    columns = list(pred) or list(score)
    if len(files) == 1:  # one file, a column of predictions per model
        if len(columns) < 2 or (pred and score) or proba:
            raise UserError("give two prediction files, A and B, or one file with two columns: --pred a --pred b "
                            "(or --score a --score b)")
        if unpaired or id_column:
            raise UserError(f"{'--unpaired' if unpaired else '--id'}: {'two' if len(columns) == 2 else 'the'} "
                            "columns of one file are paired by row")
        kind = "pred" if pred else "score"
        sources = [(files[0], {kind: column}, column) for column in columns]
    else:
        if memory is not None:
            raise UserError("--memory applies to one FILE, DIR or GLOB with a column per model (--score a --score b); "
                            "several files are read whole")
        if len(pred) > 1 or len(score) > 1:
            if len(files) == 2 and len(pred) + len(score) == 2:
                raise UserError("two files take one --pred or --score each (two columns of one file: give one file)")
            raise UserError(f"{len(files)} files take one --pred or --score each (several columns of one file: give "
                            "one file)")
        if unpaired and len(files) != 2:
            raise UserError(f"--unpaired compares two files (independent test sets), got {len(files)}")
        given = {"pred": pred[0] if pred else None, "score": score[0] if score else None}
        sources = [(path, given, os.path.splitext(os.path.basename(path))[0]) for path in files]
    _refuse_inapplicable(len(sources), unpaired, bool(score), auc_test)
    model_names = _names(names, [default for _, _, default in sources])
    if verbose and engine != "spark":
        raise UserError("--verbose shows Spark's own log: it applies to --engine spark")
    if engine == "spark" and len(files) != 1:
        raise UserError("--engine spark compares the columns of one FILE, DIR or GLOB (--score a --score b)")
    if engine == "spark" or (len(files) == 1 and streams(files[0], memory, scores=bool(score))):  # a column per model, at scale
        if engine == "spark":
            result = _compare_spark(files[0], truth, list(pred), list(score), input_format, model_names, positive,
                                    adjust, memory, fmt, verbose)
        else:
            result = _compare_streamed(files[0], truth, list(pred), list(score), input_format, na_values,
                                       model_names, positive, adjust, memory, fmt)
        kind = "pred" if pred else "score"
        result = replace(result, sources=tuple({"file": files[0], "truth": truth, kind: column,
                                                **({"engine": "spark"} if engine == "spark" else {})}
                                               for column in columns))
        write_pictures(result, html, plots)
        blocks = comparison_document(result)
        render(result, fmt, output, text=lambda tty, width: render_blocks_text(blocks, color=tty, width=width),
               markdown=lambda: render_blocks_markdown(blocks))
        return
    extra = (id_column,) if id_column and not unpaired else ()
    data = []
    from assay.io.tables import standard_input_held

    with standard_input_held():  # standard input (-) is read once, in memory, for every column: no copy on disk
        for (path, given, _), name in zip(sources, model_names, strict=True):
            try:
                data.append(read_predictions(path, truth, given.get("pred"), given.get("score"), proba,
                                             input_format, na_values, extra_columns=extra))
            except UserError as e:
                raise UserError(f"{name}: {e}") from None
    options = options_of(click.get_current_context().params)
    names_map = {**FLAG_NAMES, "positive": "--positive", "names": "--name", "y_score=": "--score"}
    if unpaired:
        reports = []
        for d, name in zip(data, model_names, strict=True):
            try:
                reports.append(evaluate(d.truth, positive=positive, score_name=d.score_name, **d.kwargs,
                                        options=options))
            except InvalidInput as e:
                shared = e.field in names_map  # an option of both models: not one model's mistake
                message = e.describe(names={**names_map, **d.names}, one_based=True)
                raise UserError(message if shared else f"{name}: {message}") from None
        try:
            result = compare_unpaired(reports[0], reports[1], names=model_names, confidence=confidence,
                                      auc_test=auc_test, bootstrap=bootstrap, seed=seed)
        except InvalidInput as e:
            raise UserError(e.describe(names=names_map, one_based=True)) from None
    else:
        for j in range(1, len(data)):  # every file's instances in the first one's order
            _align(data[0], data[j], id_column, (model_names[0], model_names[j]))
        try:
            result = paired(data[0].truth, *(d.kwargs for d in data), names=model_names, positive=positive,
                            adjust=adjust, options=options)
        except InvalidInput as e:
            raise UserError(_model_error(e, model_names, data, names_map)) from None

    result = replace(result, sources=tuple(d.source for d in data))
    write_pictures(result, html, plots)
    blocks = comparison_document(result)
    render(result, fmt, output, text=lambda tty, width: render_blocks_text(blocks, color=tty, width=width),
           markdown=lambda: render_blocks_markdown(blocks))


def _compare_streamed(source: str, truth: str | None, pred: list[str], score: list[str], input_format: str | None,
                      na_values: str | None, names: tuple[str, ...], positive: str | None, adjust: str,
                      memory: str | None, fmt: str) -> Any:
    """One source with a column per model, read in batches (assay.compare_file), with a progress bar."""
    from assay.engines.files import compare_file

    if truth is None:
        raise UserError("--truth COL is required: the column of actual classes")
    options = options_of(click.get_current_context().params)
    budget = parse_size(memory or DEFAULT_MEMORY, "--memory")
    names_map = {**FLAG_NAMES, "positive": "--positive", "names": "--name", "format": "--input-format",
                 "adjust": "--adjust", "memory": "--memory"}
    bar, update = progress_bar(fmt, "reading")
    try:
        if bar is not None:
            bar.start()
        return compare_file(source, truth=truth, scores=score or None, preds=pred or None, names=names,
                            format=input_format, na_values=parse_na_values(na_values), **dialect_options(),
                            progress=update, memory=budget, positive=positive, adjust=adjust, options=options)
    except InvalidInput as e:
        raise fail(e, names_map) from None
    finally:
        if bar is not None:
            bar.stop()


def _compare_spark(source: str, truth: str | None, pred: list[str], score: list[str], input_format: str | None,
                   names: tuple[str, ...], positive: str | None, adjust: str, memory: str | None, fmt: str,
                   verbose: bool) -> Any:
    """One source with a column per model, compared by Spark (assay.spark.compare)."""
    from assay.engines.spark_compare import compare as spark_compare

    if truth is None:
        raise UserError("--truth COL is required: the column of actual classes")
    options = options_of(click.get_current_context().params)
    budget = parse_size(memory or DEFAULT_MEMORY, "--memory")
    if memory is not None:  # the driver's budget for the score summaries: the same minimum
        check_budget(source, memory, budget, remote=True)
    names_map = {**FLAG_NAMES, "positive": "--positive", "names": "--name", "adjust": "--adjust",
                 "memory": "--memory"}
    return on_spark(source, input_format, fmt, verbose, "comparing on Spark", names_map, lambda df, update: spark_compare(
        df, truth=truth, scores=score or None, preds=pred or None, names=names, positive=positive, adjust=adjust,
        memory=budget, options=options))


def _refuse_inapplicable(models: int, unpaired: bool, scores: bool, auc_test: str) -> None:
    """Every option given applies to the comparison asked for, or is refused here in one line: never ignored."""
    given = set(named_on_command_line(("adjust", "auc_test", "threshold", "costs", "prevalence", "bootstrap",
                                       "seed", "direction", "net_benefit", "thresholds_range")))
    refused = []
    for option, flag in (("net_benefit", "--net-benefit"), ("thresholds_range", "--thresholds-range")):
        if option in given and (unpaired or not scores):
            refused.append((flag, ("paired models given as probabilities (--score; the decision curves of "
                                   "independent test sets: each file's assay report --net-benefit)")))
    if "adjust" in given and (unpaired or models < 3):
        refused.append(("--adjust", "three models or more (two models have one test: nothing to adjust)"))
    if "auc_test" in given and not (unpaired and scores):
        refused.append(("--auc-test", "--unpaired with --score (paired AUCs are compared by DeLong's test)"))
    if "threshold" in given and not scores:
        refused.append(("--threshold", "--score (predicted labels have no threshold)"))
    if unpaired:
        for option, flag in (("costs", "--costs"), ("prevalence", "--prevalence")):
            if option in given:
                refused.append((flag, "paired models (the optimal model on their combined ROC hull)"))
        if given & {"bootstrap", "seed"} and not (scores and auc_test == "bootstrap"):
            flag = "--bootstrap" if "bootstrap" in given else "--seed"
            refused.append((flag, "paired models, or --unpaired with --score and --auc-test bootstrap"))
    if refused:
        flag, where = refused[0]
        raise UserError(f"{flag} applies to {where}")


# FILES... takes the place of the one optional FILE that the shared prediction options declare
compare.params[:] = [p for p in compare.params if not (isinstance(p, click.Argument) and p.name == "file")]


def _names(given: tuple[str, ...], defaults: list[str]) -> tuple[str, ...]:
    """The models' names: one --name per model, else the files' (or columns') names; a name that repeats
    gets its model's letter, "preds (A)"."""
    m = len(defaults)
    if given and len(given) != m:
        raise UserError("--name: give two names, one per model" if m == 2 else
                        f"--name: give {m} names, one per model (got {len(given)})")
    names = list(given) if given else list(defaults)
    letters = [chr(65 + i) if i < 26 else str(i + 1) for i in range(m)]
    return tuple(f"{n} ({letters[i]})" if names.count(n) > 1 else n for i, n in enumerate(names))


def _model_error(e: InvalidInput, model_names: tuple[str, ...], data: list[Any], names_map: dict[str, str]) -> str:
    """The library's error in the user's words: "tree: column 'p' row 7: ..." for one model's input,
    "--confidence: ..." for a shared option."""
    field = e.field or ""
    if field in names_map:
        return e.describe(names=names_map, one_based=True)
    for which, name in enumerate(model_names):
        if field == name or field.startswith(name + " "):
            inner = field[len(name):].strip()
            mapped = {**names_map, **data[which].names}.get(inner, inner)
            where = f"{name}: {mapped}" if mapped else name
            return where + (f" row {e.row + 1}" if e.row is not None else "") + f": {e.problem}"
    return e.describe(names=names_map, one_based=True)

