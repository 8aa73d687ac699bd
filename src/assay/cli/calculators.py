"""The textbook calculators: ``assay interval`` (and the tests' calculators)."""

from __future__ import annotations

import click

from assay.cli.common import CONTEXT, UserError, fail, output_options, render
from assay.errors import InvalidInput

__all__ = ["register"]


def register(cli: click.Group) -> None:
    cli.add_command(interval)


@click.command(context_settings=CONTEXT)
@click.option("--successes", "-k", type=int, metavar="K", help="Number of successes (e.g. correct predictions).")
@click.option("--rate", type=float, metavar="F", help="Instead of K: the observed rate, with K = F x N whole.")
@click.option("--n", "-n", "n", type=int, required=True, metavar="N", help="Number of trials (test set size).")
@click.option("--confidence", type=float, default=0.95, show_default=True)
@click.option("--method", type=click.Choice(["wilson", "clopper-pearson", "agresti-coull", "jeffreys", "normal"]),
              default="wilson", show_default=True)
@output_options
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
    from assay.report.calculators import interval_markdown, render_interval_text

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
        raise fail(e, {"successes": "--successes", "n": "--n", "confidence": "--confidence"}) from None
    render(result, fmt, output, text=lambda tty, width: render_interval_text(result, color=tty),
           markdown=lambda: interval_markdown(result))
