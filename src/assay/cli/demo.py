"""``assay demo``: the main job on a bundled real data set."""

from __future__ import annotations

import click

from assay.cli.common import CONTEXT, output_options, render

__all__ = ["register"]


def register(cli: click.Group) -> None:
    cli.add_command(demo)


@click.command(context_settings=CONTEXT)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the folds and the bootstraps.")
@click.option("--jobs", type=int, default=1, show_default=True, help="Fit in parallel (same results).")
@output_options
def demo(seed: int, jobs: int, fmt: str, output: str | None) -> None:
    """The main job on a bundled real data set, no input needed.

    A decision tree, Gaussian naive Bayes and AdaBoost on the Wisconsin breast
    cancer data (569 tumours, malignant or benign), each estimated by stratified
    10-fold cross-validation on the same folds, with every metric's interval and
    the paired tests between the three.

    \b
    Example:
      assay demo
    """
    from assay.cli.common import progress_bar
    from assay.evaluation.demo import run_demo
    from assay.report.markdown import render_blocks_markdown
    from assay.report.text import render_blocks_text
    from assay.report.validation import validation_document

    bar, update = progress_bar(fmt, "fitting")
    if bar is not None:
        bar.start()
    try:
        result = run_demo(seed=seed, jobs=jobs, progress=update)
    finally:
        if bar is not None:
            bar.stop()
    blocks = validation_document(result)
    render(result, fmt, output, text=lambda tty, width: render_blocks_text(blocks, color=tty, width=width),
           markdown=lambda: render_blocks_markdown(blocks))
