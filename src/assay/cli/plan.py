"""``assay plan``: power and sample size, how many instances a test set needs and what a given one can tell."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from assay.cli.common import (
    CONTEXT,
    UserError,
    fail,
    output_options,
    parse_range,
    render,
)
from assay.errors import InvalidInput

__all__ = ["register"]

NAMES = {
    "p": "--p", "half_width": "--half-width", "n": "--n", "confidence": "--confidence", "method": "--method",
    "auc": "--auc", "ncases": "--ncases", "ncontrols": "--ncontrols", "kappa": "--kappa",
    "sig_level": "--sig-level", "power": "--power", "delta": "--delta", "a1": "--a1", "b1": "--b1",
    "a2": "--a2", "b2": "--b2", "rn": "--rn", "ra": "--ra", "fpr_range": "--fpr-range", "p10": "--p10",
    "p01": "--p01", "e1": "--e1", "e2": "--e2", "n1": "--n1", "n2": "--n2", "alternative": "--one-sided",
}
"""The library's argument names as this command's options."""


def register(cli: click.Group) -> None:
    cli.add_command(plan)


@click.group(context_settings=CONTEXT)
def plan() -> None:
    """Power and sample size: how many instances a test set needs, and what a given one can tell.

    Each subcommand answers its question both ways: leave out the quantity to compute.

    \b
    Examples:
      assay plan proportion --p 0.8 --half-width 0.05   instances for an accuracy of 80% within ±5 points
      assay plan auc --auc 0.8 --power 0.9             cases and controls to show an AUC of 0.8 beats chance
      assay plan mcnemar --p10 0.15 --p01 0.05 --power 0.8
      assay plan difference --e1 0.15 --e2 0.25 --power 0.8
    """


def _run(compute: Callable[[], Any], fmt: str, output: str | None) -> None:
    from assay.report.calculators import plan_document
    from assay.report.markdown import render_blocks_markdown
    from assay.report.text import render_blocks_text

    try:
        result = compute()
    except InvalidInput as e:
        raise fail(e, NAMES) from None
    blocks = plan_document(result)
    render(result, fmt, output, text=lambda tty, width: render_blocks_text(blocks, color=tty, width=width),
           markdown=lambda: render_blocks_markdown(blocks))


def _exactly_one(options: dict[str, Any], hint: str = "") -> str:
    """The one option left out (None); a usage error naming them otherwise."""
    missing = [name for name, value in options.items() if value is None]
    if len(missing) != 1:
        names = ", ".join(options)
        said = "nothing is left to compute" if not missing else f"{' and '.join(missing)} are left out"
        raise UserError(f"{said}: leave out exactly one of {names}{hint}")
    return missing[0]


@plan.command(context_settings=CONTEXT)
@click.option("--p", "p", type=float, required=True, metavar="P",
              help="The proportion expected (accuracy, error rate, recall, ...), e.g. 0.8.")
@click.option("--half-width", type=float, metavar="H", help="The precision wanted, e.g. 0.05 for ±5 points.")
@click.option("--n", "-n", "n", type=int, metavar="N", help="Instead of H: the test-set size, to get its half-width.")
@click.option("--confidence", type=float, default=0.95, show_default=True)
@click.option("--method", type=click.Choice(["wilson", "clopper-pearson", "agresti-coull", "jeffreys", "normal"]),
              default="wilson", show_default=True)
@output_options
def proportion(p: float, half_width: float | None, n: int | None, confidence: float, method: str, fmt: str,
               output: str | None) -> None:
    """How many instances for a proportion's interval to have a given half-width (or the half-width of N).

    The table of intervals of Witten & Frank (Data Mining, ch. 5) and Mitchell
    (Machine Learning, ch. 5) read backwards. The normal interval has the closed
    form n = z² p (1 - p) / h²; the others are searched, with k = p n.

    \b
    Examples:
      assay plan proportion --p 0.8 --half-width 0.05 --method normal   246 instances
      assay plan proportion --p 0.8 --half-width 0.05                   Wilson's interval
      assay plan proportion --p 0.8 --n 100 --format json               the half-width on 100
    """
    from assay.inference.power import proportion_half_width, proportion_n

    if (half_width is None) == (n is None):
        raise UserError("give exactly one of --half-width H (to get the instances needed) or --n N (to get the "
                        "half-width)")
    if half_width is not None:
        _run(lambda: proportion_n(p, half_width, confidence=confidence, method=method), fmt, output)
    else:
        _run(lambda: proportion_half_width(p, n, confidence=confidence, method=method), fmt, output)


def _auc_options(f: Callable) -> Callable:
    for option in reversed([
        click.option("--ncases", type=float, metavar="N", help="Number of cases (positives)."),
        click.option("--ncontrols", type=float, metavar="N", help="Number of controls (negatives)."),
        click.option("--kappa", type=float, metavar="K",
                     help="Controls per case (ncontrols / ncases), with one of them or none; 1 by default."),
        click.option("--sig-level", type=float, metavar="A",
                     help="Significance level; 0.05 unless it is the quantity left out."),
        click.option("--power", type=float, metavar="P", help="Power, e.g. 0.9."),
        click.option("--one-sided", is_flag=True, help="A one-sided test (pROC's alternative = \"one.sided\")."),
    ]):
        f = option(f)
    return f


def _sig_level(sig_level: float | None, others: dict[str, Any]) -> float | None:
    """--sig-level: as given; else 0.05, unless everything else is given (then it is the quantity computed)."""
    hint = " (--sig-level is 0.05 unless it is the one left out)"
    if sig_level is None and all(value is not None for value in others.values()):
        return None
    _exactly_one({**others, "--sig-level": True} if sig_level is None else {**others, "--sig-level": sig_level},
                 hint)
    return 0.05 if sig_level is None else sig_level


@plan.command(context_settings=CONTEXT)
@click.option("--auc", type=float, metavar="AUC", help="The AUC expected, in (0.5, 1).")
@_auc_options
@output_options
def auc(auc: float | None, ncases: float | None, ncontrols: float | None, kappa: float | None,
        sig_level: float | None, power: float | None, one_sided: bool, fmt: str, output: str | None) -> None:
    """Power and sample size of the test of one AUC against 0.5 (pROC's power.roc.test).

    Leave out exactly one of --auc, the sample size (--ncases and --ncontrols, or one
    of them with --kappa), --power and --sig-level: it is computed. Obuchowski's
    (2004) variance, with pROC's constants, so the answers are pROC's.

    \b
    Examples (all but the first from pROC's manual):
      assay plan auc --auc 0.8 --power 0.9                        cases and controls needed
      assay plan auc --auc 0.73 --ncases 41 --ncontrols 72        power
      assay plan auc --auc 0.73 --power 0.95 --kappa 1.7          29.67 cases, 50.44 controls
      assay plan auc --ncases 41 --ncontrols 72 --power 0.95      the smallest AUC detected
      assay plan auc --auc 0.73 --ncases 41 --ncontrols 72 --power 0.95   significance level
    """
    from assay.inference.power import auc_power

    n_given = ncases is not None or ncontrols is not None
    sig = _sig_level(sig_level, {"--auc": auc, "--ncases/--ncontrols": True if n_given else None, "--power": power})
    _run(lambda: auc_power(auc, ncases=ncases, ncontrols=ncontrols, kappa=kappa, sig_level=sig, power=power,
                           alternative="one-sided" if one_sided else "two-sided"), fmt, output)


@plan.command("auc-pair", context_settings=CONTEXT)
@click.option("--delta", type=float, required=True, metavar="D", help="The difference of the (partial) AUCs to detect.")
@click.option("--a1", type=float, required=True, help="Binormal A of curve 1.")
@click.option("--b1", type=float, required=True, help="Binormal B of curve 1.")
@click.option("--a2", type=float, required=True, help="Binormal A of curve 2.")
@click.option("--b2", type=float, required=True, help="Binormal B of curve 2.")
@click.option("--rn", type=float, required=True, help="Correlation of the two scores among controls (negatives).")
@click.option("--ra", type=float, required=True, help="Correlation of the two scores among cases (positives).")
@click.option("--fpr-range", metavar="LOW,HIGH", help="A partial AUC over this range of false-positive rates.")
@_auc_options
@output_options
def auc_pair(delta: float, a1: float, b1: float, a2: float, b2: float, rn: float, ra: float, fpr_range: str | None,
             ncases: float | None, ncontrols: float | None, kappa: float | None, sig_level: float | None,
             power: float | None, one_sided: bool, fmt: str, output: str | None) -> None:
    """Power and sample size of the test of two paired AUCs, from binormal curves (pROC's power.roc.test).

    Two classifiers on the same instances, each with a binormal ROC curve
    TPR = Φ(A + B Φ⁻¹(FPR)); Obuchowski & McClish (1997). Leave out exactly one of
    the sample size, --power and --sig-level.

    \b
    Example (Obuchowski & McClish 1997, example 2, as pROC's manual):
      assay plan auc-pair --delta 0.037 --a1 2.6 --b1 1 --a2 1.9 --b2 1 --rn 0.6 --ra 0.6 \\
          --fpr-range 0,0.2 --power 0.8                           107.02 cases and controls
    """
    from assay.inference.power import auc_pair_power

    fpr = parse_range(fpr_range, "--fpr-range")
    n_given = ncases is not None or ncontrols is not None
    sig = _sig_level(sig_level, {"--ncases/--ncontrols": True if n_given else None, "--power": power})
    _run(lambda: auc_pair_power(delta, a1=a1, b1=b1, a2=a2, b2=b2, rn=rn, ra=ra, fpr_range=fpr, ncases=ncases,
                                ncontrols=ncontrols, kappa=kappa, sig_level=sig, power=power,
                                alternative="one-sided" if one_sided else "two-sided"), fmt, output)


@plan.command(context_settings=CONTEXT)
@click.option("--p10", type=float, required=True, metavar="P",
              help="Share of instances that only classifier 1 gets right.")
@click.option("--p01", type=float, required=True, metavar="P",
              help="Share of instances that only classifier 2 gets right.")
@click.option("--power", type=float, metavar="P", help="The power wanted: gives the number of instances.")
@click.option("--n", "-n", "n", type=int, metavar="N", help="Instead: the number of instances, to get the power.")
@click.option("--confidence", type=float, default=0.95, show_default=True, help="Of the two-sided test.")
@output_options
def mcnemar(p10: float, p01: float, power: float | None, n: int | None, confidence: float, fmt: str,
            output: str | None) -> None:
    """How many instances McNemar's test needs to tell two classifiers apart (Connor 1987).

    Only the discordant instances count: p10, the share that classifier 1 alone gets
    right, and p01, the share that classifier 2 alone gets right (Dietterich 1998).

    \b
    Examples:
      assay plan mcnemar --p10 0.15 --p01 0.05 --power 0.8
      assay plan mcnemar --p10 0.15 --p01 0.05 --n 100          the power of 100 instances
    """
    from assay.inference.power import mcnemar_n, mcnemar_power

    _exactly_one({"--power": power, "--n": n})
    if power is not None:
        _run(lambda: mcnemar_n(p10, p01, confidence=confidence, power=power), fmt, output)
    else:
        _run(lambda: mcnemar_power(p10, p01, n, confidence=confidence), fmt, output)


@plan.command(context_settings=CONTEXT)
@click.option("--e1", type=float, required=True, metavar="E", help="Error rate expected of model 1.")
@click.option("--e2", type=float, required=True, metavar="E", help="Error rate expected of model 2.")
@click.option("--power", type=float, metavar="P", help="The power wanted: gives the size of each test set.")
@click.option("--n1", type=int, metavar="N", help="Instead: the size of model 1's test set (with --n2), for the power.")
@click.option("--n2", type=int, metavar="N", help="The size of model 2's test set.")
@click.option("--confidence", type=float, default=0.95, show_default=True, help="Of the two-sided z test.")
@output_options
def difference(e1: float, e2: float, power: float | None, n1: int | None, n2: int | None, confidence: float,
               fmt: str, output: str | None) -> None:
    """How large two independent test sets must be for two error rates to differ significantly.

    The z test of d = e2 - e1 with the normal approximation of ``assay difference``
    (Mitchell, Machine Learning, ch. 5), planned ahead.

    \b
    Examples:
      assay plan difference --e1 0.15 --e2 0.25 --power 0.8          instances for each model
      assay plan difference --e1 0.15 --e2 0.25 --n1 30 --n2 5000    the power of those test sets
    """
    from assay.inference.power import difference_n, difference_power

    if (n1 is None) != (n2 is None):
        raise UserError("give both --n1 and --n2 (the sizes of the two test sets), or --power instead")
    _exactly_one({"--power": power, "--n1/--n2": n1})
    if power is not None:
        _run(lambda: difference_n(e1, e2, confidence=confidence, power=power), fmt, output)
    else:
        _run(lambda: difference_power(e1, e2, n1, n2, confidence=confidence), fmt, output)
