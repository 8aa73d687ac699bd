"""``assay validate``: a learner's error on a data set by a protocol, and the comparison of several."""

from __future__ import annotations

import csv
import io
import json
import os
from typing import Any

import click

from assay.cli.common import (
    CONTEXT,
    UserError,
    fail,
    output_options,
    picture_options,
    progress_bar,
    render,
    write_pictures,
)
from assay.cli.options import options_of
from assay.errors import InvalidInput

__all__ = ["register"]

METHODS = ("resubstitution", "holdout", "repeated-holdout", "cv", "repeated-cv", "loo", "bootstrap", "bootstrap632",
           "bootstrap632plus", "train-val-test")
NAMES = {"model": "--model", "param": "--param", "grid": "--grid", "method": "--method", "folds": "--folds",
         "repeats": "--repeats", "test_size": "--test-size", "seed": "--seed", "jobs": "--jobs",
         "target": "--target", "dataset": "--dataset", "confidence": "--confidence", "bootstrap": "--bootstrap",
         "positive": "--positive", "stratify": "--no-stratify", "models": "--model", "task": "--task",
         "costs": "--costs", "cost_matrix": "--cost-matrix", "cost_method": "--cost-method",
         "prevalence": "--prevalence", "cost_method=resample": "--cost-method resample"}


def register(cli: click.Group) -> None:
    cli.add_command(validate)


def _split_model_option(values: tuple[str, ...], models: list[str], option: str) -> dict[str, list[str]]:
    """[MODEL:]KEY=VALUE items, each for one model or, without a model, for all of them."""
    out: dict[str, list[str]] = {m: [] for m in models}
    for item in values:
        head, sep, rest = item.partition(":")
        if sep and "=" not in head:
            if head not in out:
                raise UserError(f"{option}: {head!r} is not one of the models ({', '.join(models)})")
            out[head].append(rest)
        else:
            for m in models:
                out[m].append(item)
    return out


@click.command(context_settings=CONTEXT)
@click.argument("files", nargs=-1, metavar="[FILE]...")
@click.option("--target", metavar="COL", help="The column of classes (or of numbers, --task regression) in FILE.")
@click.option("--dataset", type=click.Choice(["breast-cancer", "iris", "wine", "digits", "diabetes"]), multiple=True,
              help="A real data set that scikit-learn ships, instead of FILE (diabetes: a numeric target). "
                   "Repeat it to validate the models on each and compare them over all by their accuracy "
                   "(Friedman's test, Nemenyi's critical difference; Demšar 2006).")
@click.option("--model", "models", multiple=True, metavar="NAME",
              help="zero-r, decision-tree, naive-bayes, knn, logistic, svm, random-forest, bagging, adaboost, or "
                   "an import path (package.module.Class); with --task regression: zero-r, linear, ridge, "
                   "decision-tree, knn, random-forest, bagging, adaboost (regressors). Repeat to compare on the "
                   "same splits.")
@click.option("--models", "model_list", metavar="NAME,NAME", help="Several models at once, comma-separated.")
@click.option("--task", type=click.Choice(["auto", "classification", "regression"]), default="auto",
              show_default=True,
              help="regression: a numeric target, validated with regressors (MSE, MAE, R², ...); auto: regression "
                   "when the target holds non-integer numbers or the data set is numeric.")
@click.option("--param", "params", multiple=True, metavar="[MODEL:]KEY=VALUE", help="A learner's parameter.")
@click.option("--grid", "grids", multiple=True, metavar="[MODEL:]KEY=V1,V2",
              help="Values to tune on the validation part (train-val-test).")
@click.option("--method", type=click.Choice(METHODS), default="cv", show_default=True)
@click.option("--folds", type=int, default=10, show_default=True, help="Folds of (repeated) cross-validation.")
@click.option("--repeats", type=int, help="Repetitions, or bootstrap rounds (default 10; 50 for the bootstrap).")
@click.option("--test-size", type=float, default=1 / 3, show_default="1/3", help="Holdout's test share.")
@click.option("--stratify/--no-stratify", default=None,
              help="Keep (or not) class proportions in the parts; default: stratified for classes (a numeric "
                   "target is never stratified).")
@click.option("--seed", type=int, default=0, show_default=True, help="Makes every split reproducible.")
@click.option("--jobs", type=int, default=1, show_default=True, help="Fit in parallel (same results).")
@click.option("--positive", metavar="LABEL", help="The positive class of a two-class problem.")
@click.option("--confidence", type=float, default=0.95, show_default=True)
@click.option("--bootstrap", type=int, default=2000, show_default=True, help="Bootstrap resamples for intervals.")
@click.option("--adjust", type=click.Choice(["holm", "bonferroni", "none"]), default="holm", show_default=True,
              help="With three or more models: how the pairwise tests' p-values are adjusted for multiple "
                   "comparisons (the verdicts use the adjusted p-values).")
@click.option("--costs", metavar="fp=C,fn=C",
              help="Costs of the outcomes (two classes): each model's expected cost beside its error, and the optimal "
                   "model in ROC space for them.")
@click.option("--cost-matrix", "cost_matrix_file", metavar="FILE",
              help="Costs of every outcome, laid out as assay report --confusion (any number of classes).")
@click.option("--cost-method", type=click.Choice(["weight", "resample"]),
              help="Cost-sensitive learning: weight the training instances by the cost of misclassifying their class "
                   "(sample_weight), or resample them in proportion, inside each training part only.")
@click.option("--prevalence", type=float, metavar="P",
              help="Share of positives where the models will be used, for the optimal model (default: the data's).")
@click.option("--save-model", "save_model", metavar="DIR",
              help="Refit each model on all the data after estimating its error, and save it to DIR/MODEL.joblib "
                   "(joblib) with DIR/MODEL.json: its estimate, method and classes.")
@click.option("--predictions", metavar="DIR", help="Write each model's out-of-fold predictions to DIR/MODEL.csv.")
@click.option("--drop", "drop", multiple=True, metavar="COL", help="A column of FILE not to learn from (repeatable).")
@click.option("--id", "id_column", metavar="COL",
              help="A column of FILE that identifies the rows: not learned from, and written beside the "
                   "out-of-fold predictions (--predictions).")
@click.option("--input-format", type=click.Choice(["csv", "tsv", "parquet", "jsonl"]))
@picture_options
@output_options
def validate(files: tuple[str, ...], target: str | None, dataset: tuple[str, ...], models: tuple[str, ...],
             model_list: str | None, task: str,
             params: tuple[str, ...], grids: tuple[str, ...], method: str, folds: int, repeats: int | None,
             test_size: float, stratify: bool | None, seed: int, jobs: int, positive: str | None, confidence: float,
             bootstrap: int, adjust: str, costs: str | None, cost_matrix_file: str | None, cost_method: str | None,
             prevalence: float | None, save_model: str | None, predictions: str | None, drop: tuple[str, ...], id_column: str | None,
             input_format: str | None, html: str | None,
             plots: str | None, fmt: str, output: str | None) -> None:
    """Estimate learners' error on a data set with a protocol, and compare them.
    Every model runs on the very same splits; the report gives each model's
    estimate (as the method defines it), its out-of-fold metrics with intervals,
    the spread over folds, and the paired tests between models.

    \b
    Examples:
      assay validate --dataset breast-cancer --model decision-tree --model naive-bayes
      assay validate --dataset iris --model knn --method repeated-cv --folds 5 --repeats 10
      assay validate data.csv --target y --model logistic --method bootstrap632plus --repeats 100
      assay validate --dataset wine --model decision-tree --method train-val-test --grid max_depth=1,2,3,5
      assay validate --dataset breast-cancer --model svm --model random-forest --jobs 2 --format json
      assay validate --dataset breast-cancer --model decision-tree --model naive-bayes --html report.html
      assay validate --dataset diabetes --task regression --models linear,ridge,random-forest --folds 5
      assay validate --dataset breast-cancer --model logistic --costs fp=1,fn=10 --cost-method weight
      assay validate a.csv b.csv c.csv --target y --model knn --model naive-bayes --model decision-tree
      assay validate --dataset iris --model logistic --save-model models/
    """
    from assay.evaluation.validation import validate as run_validation
    from assay.protocols.learners import parse_params

    listed = [m.strip() for m in (model_list or "").split(",") if m.strip()]
    if model_list is not None and not listed:
        raise UserError("--models: give model names separated by commas, e.g. linear,ridge")
    names = list(dict.fromkeys([*models, *listed])) or ["decision-tree"]
    datasets = list(dataset)
    for i, name in enumerate([*datasets, *files]):
        if name in [*datasets, *files][:i]:
            raise UserError(f"{'--dataset' if i < len(datasets) else 'FILE'} {name!r} is given twice: give each "
                            "data set once")
    sources = len(datasets) + len(files)
    file = files[0] if len(files) == 1 and not datasets else None
    dataset = datasets[0] if datasets and not files else None  # type: ignore[assignment]
    if sources == 0:
        raise UserError("give a FILE with --target COL, or --dataset NAME")
    if files and target is None:
        raise UserError("--target COL is required with FILE: the column of classes")
    data = None
    if file is not None:
        data, ids = _read_file(file, target, input_format, drop, id_column)
    elif files and (drop or id_column):
        pass  # several files: each read by _read_file below
    elif drop or id_column:
        raise UserError(f"{'--drop' if drop else '--id'} applies to the columns of a FILE")
    try:
        model_params = {m: parse_params(items, field="param")
                        for m, items in _split_model_option(params, names, "--param").items()}
        model_grids = {}
        for m, items in _split_model_option(grids, names, "--grid").items():
            grid = {}
            for item in items:
                key, sep, values = item.partition("=")
                if not sep or not key.strip():
                    raise UserError(f"--grid: {item!r} is not of the form KEY=V1,V2,...")
                grid[key.strip()] = [parse_params([f"value={v}"], field="grid")["value"] for v in values.split(",")]
            if grid:
                model_grids[m] = grid
    except InvalidInput as e:
        raise fail(e, NAMES) from None
    options = options_of(click.get_current_context().params)
    if sources > 1:
        if save_model:
            raise UserError("--save-model applies to one --dataset")
        if any(v is not None for v in (costs, cost_matrix_file, cost_method, prevalence)):
            raise UserError("--costs, --cost-matrix, --cost-method and --prevalence apply to one data set")
        if predictions or html:
            raise UserError(f"{'--predictions' if predictions else '--html'} applies to one data set")
        settings = dict(models=names, method=method, folds=folds, repeats=repeats, test_size=test_size,
                        stratify=stratify, seed=seed, params=model_params, grids=model_grids or None, jobs=jobs,
                        confidence=confidence, bootstrap=bootstrap, positive=positive, adjust=adjust, task=task)
        named = [(name, {"dataset": name}) for name in datasets]
        for path in files:
            table, _ = _read_file(path, target, input_format, drop, id_column)
            named.append((path, {"data": table, "target": target, "name": path}))
        _many_datasets(named, settings, fmt, output, plots)
        return
    bar, update = progress_bar(fmt, "fitting")
    try:
        if bar is not None:
            bar.start()
        result = run_validation(data=data, target=target, dataset=dataset, name=file, models=names, method=method,
                                folds=folds,
                                repeats=repeats, test_size=test_size, stratify=stratify, seed=seed,
                                params=model_params, grids=model_grids or None, jobs=jobs, positive=positive,
                                progress=update, adjust=adjust, task=task, refit=bool(save_model),
                                cost_method=cost_method, options=options)
    except InvalidInput as e:
        column = {e.field: f"column {e.field!r}"} if data is not None and e.field in data else {}  # a feature's
        raise fail(e, {**NAMES, "stratify": "--stratify" if stratify else "--no-stratify",
                       target or "": f"column {target!r}", **column}) from None
    finally:
        if bar is not None:
            bar.stop()
    if predictions:
        _write_predictions(result, predictions, ids if file is not None else None)
    if save_model:
        _save_models(result, save_model)
    write_pictures(result, html, plots)
    from assay.report.markdown import render_blocks_markdown
    from assay.report.text import render_blocks_text
    from assay.report.validation import validation_document

    blocks = validation_document(result)
    render(result, fmt, output, text=lambda tty, width: render_blocks_text(blocks, color=tty, width=width),
           markdown=lambda: render_blocks_markdown(blocks))


def _save_models(result: Any, directory: str) -> None:
    """DIR/MODEL.joblib (the model fitted on all the data) and DIR/MODEL.json (its estimate), written atomically."""
    import joblib

    from assay.io.atomic import write_atomic

    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as e:
        raise UserError(f"--save-model: cannot create {directory}: {e.strerror or e}") from None
    for name, model in (result.final_models or {}).items():
        stem = os.path.join(directory, name.replace("/", "_"))
        buffer = io.BytesIO()
        joblib.dump(model, buffer)
        m = result.models[name]
        meta = {"model": {"name": name, "title": m.title}, "fitted_on": f"all {result.n:,} instances of "
                f"{result.dataset}", "task": getattr(result, "task", "classification"),
                "classes": list(getattr(result, "labels", ())), "features": list(result.features),
                "estimate": m.estimate.to_dict(), "method": result.method, "settings": result.settings,
                "notes": list(result.notes),
                "use": "joblib.load(path).predict(X): X as the features were given to assay validate"}
        try:
            write_atomic(stem + ".joblib", buffer.getvalue())
            write_atomic(stem + ".json", json.dumps(meta, indent=2, default=str) + "\n")
        except OSError as e:
            raise UserError(f"--save-model: cannot write {stem}: {e.strerror or e}") from None


def _write_predictions(result: Any, directory: str, ids: Any = None) -> None:
    """DIR/MODEL.csv for each model, written atomically: readable by assay report and assay compare."""
    from assay.io.atomic import write_atomic

    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as e:
        raise UserError(f"--predictions: cannot create {directory}: {e.strerror or e}") from None
    for model in result.models:
        header, rows = result.predictions(model, ids=ids)
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        path = os.path.join(directory, f"{model.replace('/', '_')}.csv")
        try:
            write_atomic(path, buffer.getvalue())
        except OSError as e:
            raise UserError(f"--predictions: cannot write {path}: {e.strerror or e}") from None


def _read_file(file: str, target: str, input_format: str | None, drop: tuple[str, ...],
               id_column: str | None) -> tuple[dict[str, Any], Any]:
    """A FILE's columns without --drop and --id, and the identifiers of --id (None without it)."""
    from assay.io.tables import read_table

    try:
        data = dict(read_table(file, format=input_format, required=(target,)).columns)
    except InvalidInput as e:
        raise fail(e, {"format": "--input-format"}) from None
    for column, option in [*((c, "--drop") for c in drop), *([(id_column, "--id")] if id_column else [])]:
        if column not in data:
            raise UserError(f"{option}: {column!r} is not a column of {file} (the columns: "
                            f"{', '.join(repr(c) for c in list(data)[:20])})")
        if column == target:
            raise UserError(f"{option}: {column!r} is the target")
    ids = data[id_column].to_pylist() if id_column else None
    return {name: values for name, values in data.items() if name not in drop and name != id_column}, ids


def _many_datasets(sources: list[tuple[str, dict[str, Any]]], settings: dict[str, Any], fmt: str, output: str | None,
                   plots: str | None) -> None:
    """Several data sets: each validated as alone, then the models ranked over them (the library does both)."""
    from assay.evaluation.validation import validate_over_datasets
    from assay.report.markdown import render_blocks_markdown
    from assay.report.text import render_blocks_text
    from assay.report.validation import datasets_document

    given = [name if "dataset" in source else (name, source["data"], source["target"]) for name, source in sources]
    bars: list[Any] = []

    def progress(name: str) -> Any:
        bar, update = progress_bar(fmt, f"fitting on {name}")
        if bar is not None:
            bar.start()
            bars.append(bar)
        return update

    try:
        result = validate_over_datasets(given, progress=progress, **settings)
    except InvalidInput as e:
        raise fail(e, {**NAMES, "stratify": "--stratify" if settings["stratify"] else "--no-stratify"}) from None
    finally:
        for bar in bars:
            bar.stop()
    blocks = datasets_document(result)
    render(result, fmt, output, text=lambda tty, width: render_blocks_text(blocks, color=tty, width=width),
           markdown=lambda: render_blocks_markdown(blocks))
    if plots and result.friedman is not None:
        from assay.cli.common import stop_if_interrupted
        from assay.report.cd_plot import save_cd_plot

        stop_if_interrupted()
        try:
            save_cd_plot(result.friedman, plots)
        except OSError as e:
            raise UserError(f"--plots: cannot write to {plots}: {e.strerror or e}") from None
        except InvalidInput as e:
            raise UserError(f"--plots: {e}") from None
