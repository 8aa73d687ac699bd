"""The textbook calculators: ``assay interval``, the tests' calculators and ``assay z``."""

from __future__ import annotations

import click

from assay.cli.common import CONTEXT, UserError, fail, output_options, render
from assay.errors import InvalidInput

__all__ = ["register"]


def register(cli: click.Group) -> None:
    cli.add_command(interval)
    cli.add_command(mcnemar)
    cli.add_command(difference)
    cli.add_command(z_table)


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
    Examples (Witten & Frank ch. 5; Mitchell ch. 5):
      assay interval --successes 80 --n 100                 accuracy 80% on 100 instances
      assay interval --rate 0.25 --n 1000 --confidence 0.8  error rate 25% on 1000, at 80%
      assay interval -k 40 -n 50 --method clopper-pearson --format json
    """
    from assay.inference.proportion import proportion_ci, successes_from_rate
    from assay.report.calculators import interval_markdown, render_interval_text

    if (successes is None) == (rate is None):
        raise UserError("give exactly one of --successes K or --rate F")
    try:
        if rate is not None:
            successes = successes_from_rate(rate, n)
        result = proportion_ci(successes, n, confidence=confidence, method=method)  # type: ignore[arg-type]
    except InvalidInput as e:
        raise fail(e, {"successes": "--successes", "n": "--n", "confidence": "--confidence", "rate": "--rate"}) from None
    render(result, fmt, output, text=lambda tty, width: render_interval_text(result, color=tty),
           markdown=lambda: interval_markdown(result))


@click.command(context_settings=CONTEXT)
@click.option("--table", nargs=4, type=int, required=True, metavar="A B C D",
              help="The 2 x 2 table [[A, B], [C, D]]: A both right, B only the first right, C only the "
                   "second right, D both wrong.")
@click.option("--method", type=click.Choice(["auto", "chi2-corrected", "chi2", "exact"]), default="chi2-corrected",
              show_default=True, help="auto: exact binomial when B + C < 25, else corrected chi-squared.")
@click.option("--confidence", type=float, default=0.95, show_default=True)
@output_options
def mcnemar(table: tuple[int, int, int, int], method: str, confidence: float, fmt: str, output: str | None) -> None:
    """McNemar's test of two classifiers on the same instances, from their 2 x 2 table.

    \b
    Example (Dietterich 1998: M1 right and M2 wrong on 40 instances, the reverse on 20):
      assay mcnemar --table 80 40 20 60
    """
    from assay.checks import check_confidence
    from assay.inference.mcnemar import mcnemar as mcnemar_test
    from assay.report.calculators import mcnemar_document
    from assay.report.markdown import render_blocks_markdown
    from assay.report.text import render_blocks_text

    try:
        check_confidence(confidence)
        result = mcnemar_test([[table[0], table[1]], [table[2], table[3]]], method=method)  # type: ignore[arg-type]
    except InvalidInput as e:
        raise fail(e, {"table": "--table", "method": "--method", "confidence": "--confidence"}) from None
    except ValueError as e:
        raise UserError(f"--confidence: {e}") from None
    blocks = mcnemar_document(result, table, confidence)
    render(_Dict(result.to_dict(confidence, what="the two classifiers' errors")), fmt, output,
           text=lambda tty, width: render_blocks_text(blocks, color=tty, width=width),
           markdown=lambda: render_blocks_markdown(blocks))


@click.command(context_settings=CONTEXT)
@click.option("--e1", type=float, required=True, metavar="E", help="Error rate of model 1 on its test set.")
@click.option("--n1", type=int, required=True, metavar="N", help="Size of model 1's test set.")
@click.option("--e2", type=float, required=True, metavar="E", help="Error rate of model 2 on its test set.")
@click.option("--n2", type=int, required=True, metavar="N", help="Size of model 2's test set.")
@click.option("--confidence", type=float, default=0.95, show_default=True)
@output_options
def difference(e1: float, n1: int, e2: float, n2: int, confidence: float, fmt: str, output: str | None) -> None:
    """Is one error rate really different from another, measured on independent test sets?

    The interval of d = e2 - e1 with the normal approximation, its p-value, and the
    confidence at which the difference would become significant (Mitchell 1997, ch. 5).

    \b
    Example (an error of 15% on 30 instances against 25% on 5,000):
      assay difference --e1 0.15 --n1 30 --e2 0.25 --n2 5000
    """
    from assay.inference.difference import error_difference
    from assay.report.calculators import difference_document
    from assay.report.markdown import render_blocks_markdown
    from assay.report.text import render_blocks_text

    try:
        result = error_difference(e1, n1, e2, n2, confidence=confidence)
    except InvalidInput as e:
        raise fail(e, {"e1": "--e1", "n1": "--n1", "e2": "--e2", "n2": "--n2", "confidence": "--confidence"}) from None
    blocks = difference_document(result, confidence)
    render(_Dict(result.to_dict(confidence)), fmt, output,
           text=lambda tty, width: render_blocks_text(blocks, color=tty, width=width),
           markdown=lambda: render_blocks_markdown(blocks))


@click.command("z", context_settings=CONTEXT)
@click.option("--confidence", type=float, metavar="C", help="The confidence level whose z is wanted, e.g. 0.9.")
@click.option("--z", "z", type=float, metavar="Z", help="Instead: the z whose confidence levels are wanted.")
@click.option("--one-sided", is_flag=True, help="One-sided: P(Z <= z) = C instead of P(-z <= Z <= z) = C.")
@output_options
def z_table(confidence: float | None, z: float | None, one_sided: bool, fmt: str, output: str | None) -> None:
    """The normal table: the z of a confidence level, or the confidence levels of a z.

    Two-sided by default, as the tables of Witten & Frank (Data Mining, ch. 5) and
    Mitchell (Machine Learning, ch. 5): the interval estimate ± z sigma.

    \b
    Examples:
      assay z --confidence 0.9                 z = 1.645 (two-sided)
      assay z --confidence 0.95 --one-sided    z = 1.645 (one-sided)
      assay z --z 1.53                         87.4% two-sided, 93.7% one-sided
    """
    from assay.inference.distributions import normal_table
    from assay.report.calculators import normal_table_document
    from assay.report.markdown import render_blocks_markdown
    from assay.report.text import render_blocks_text

    if (confidence is None) == (z is None):
        raise UserError("give exactly one of --confidence C or --z Z")
    try:
        result = normal_table(confidence, z=z, two_sided=not one_sided)
    except InvalidInput as e:
        raise fail(e, {"confidence": "--confidence", "z": "--z"}) from None
    blocks = normal_table_document(result)
    render(result, fmt, output, text=lambda tty, width: render_blocks_text(blocks, color=tty, width=width),
           markdown=lambda: render_blocks_markdown(blocks))


class _Dict:
    """A ready dict, rendered as JSON like a result with to_dict()."""

    def __init__(self, data: dict) -> None:
        self.data = data

    def to_dict(self) -> dict:
        return self.data
