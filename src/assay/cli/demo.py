"""``assay demo``: the main job on a bundled real data set."""

from __future__ import annotations

from dataclasses import replace

import click

from assay.cli.common import CONTEXT, output_options, render

__all__ = ["register"]


def register(cli: click.Group) -> None:
    cli.add_command(demo)


@click.command(context_settings=CONTEXT)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the split and the bootstrap.")
@output_options
def demo(seed: int, fmt: str, output: str | None) -> None:
    """The main job on a bundled real data set, no input needed.

    Logistic regression on the Wisconsin breast cancer data (569 tumours),
    trained on a stratified two thirds and evaluated on the held-out third.

    \b
    Example:
      assay demo
    """
    from assay.protocols.demo import run_demo
    from assay.report.text import render_text

    result = run_demo(seed=seed)
    result = replace(result, source={"demo": "logistic regression, breast-cancer, stratified holdout 1/3"})
    render(result, fmt, output, text=lambda tty, width: render_text(result, color=tty, width=width))
