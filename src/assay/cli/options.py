"""The command line's options of an evaluation, mapped once onto :class:`assay.Options`.

Every command that evaluates (``report``, ``curves``, ``compare``, ``validate``) builds its options from
its parsed parameters with :func:`options_of`, through the one table :data:`FLAGS`: which parameter holds
which option, under which flag, and how its text becomes the option's value. The library checks the values
(:class:`assay.Options` validates itself); an error names the flag the user typed. Adding an option to the
command line is one line here and one ``click.option``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from assay.cli.common import UserError, fail, parse_pairs, parse_range
from assay.errors import InvalidInput

__all__ = ["FLAGS", "FLAG_NAMES", "options_of"]


def _costs(text: str) -> Any:
    return parse_pairs(text, "--costs", keys=("fp", "fn", "tp", "tn"))


def _cost_matrix(path: str) -> Any:
    from assay.io.confusion_file import (
        read_cost_matrix,  # the reader of matrix files (I/O, below the CLI)
    )

    try:
        return read_cost_matrix(path)
    except InvalidInput as e:
        raise UserError(f"--cost-matrix: {e.describe()}") from None


def _thresholds_range(text: str) -> Any:
    try:
        return tuple(float(part) for part in text.split(","))
    except ValueError:
        raise UserError(f"--thresholds-range: {text!r} is not LOW,HIGH[,STEP], e.g. 0.05,0.5 or 0.05,0.5,0.05") from None


def _calibration(text: str) -> tuple[str | None, tuple[str, ...] | None]:
    """--calibration read: the table's binning (None: not given) and the parts shown (None: not given, all of
    them), in the library's words (``CALIBRATION_STRATEGIES``, ``CALIBRATION_PARTS``), with ``all`` and
    ``none``."""
    from assay.evaluation.probabilistic import (  # the library, loaded once a command runs
        CALIBRATION_PARTS,
        CALIBRATION_STRATEGIES,
    )

    words = [word.strip().lower() for word in text.split(",") if word.strip()]
    known = (*CALIBRATION_STRATEGIES, *CALIBRATION_PARTS, "all", "none")
    for word in words:
        if word not in known:
            raise UserError(f"--calibration: {word!r} is not one of {', '.join(known)} (e.g. --calibration "
                            "quantile, --calibration curve or --calibration table,hierarchy)")
    if not words:
        raise UserError(f"--calibration: empty; give a binning ({', '.join(CALIBRATION_STRATEGIES)}) or parts "
                        f"({', '.join(CALIBRATION_PARTS)}, all, none)")
    binnings = [word for word in words if word in CALIBRATION_STRATEGIES]
    shown = [word for word in words if word not in CALIBRATION_STRATEGIES]
    if len(binnings) > 1:
        raise UserError(f"--calibration: {text!r} names two binnings; give {' or '.join(CALIBRATION_STRATEGIES)}")
    if "none" in shown and len(shown) > 1:
        raise UserError(f"--calibration: {text!r} asks for none and for parts")
    if binnings and shown and not {"table", "all"} & set(shown):
        raise UserError(f"--calibration: {binnings[0]} bins the calibration table, which {text!r} leaves out; "
                        "add table")
    parts = () if "none" in shown else CALIBRATION_PARTS if "all" in shown else tuple(shown) or None
    return (binnings[0] if binnings else None), parts


def _calibration_strategy(text: str) -> str | None:
    return _calibration(text)[0]


def _calibration_parts(text: str) -> tuple[str, ...] | None:
    return _calibration(text)[1]


FLAGS: dict[str, tuple[str, str, Callable[[Any], Any] | None]] = {
    "threshold": ("threshold", "--threshold", None),
    "direction": ("direction", "--direction", None),
    "confidence": ("confidence", "--confidence", None),
    "interval": ("interval", "--interval", None),
    "auc_interval": ("auc_interval", "--auc-interval", None),
    "beta": ("beta", "--beta", None),
    "bootstrap": ("bootstrap", "--bootstrap", None),
    "seed": ("seed", "--seed", None),
    "costs": ("costs", "--costs", _costs),
    "cost_matrix": ("cost_matrix_file", "--cost-matrix", _cost_matrix),
    "prevalence": ("prevalence", "--prevalence", None),
    "fpr_range": ("fpr_range", "--fpr-range", lambda text: parse_range(text, "--fpr-range")),
    "sensitivity_range": ("sensitivity_range", "--sensitivity-range",
                          lambda text: parse_range(text, "--sensitivity-range")),
    "lift_depth": ("lift_depth", "--lift-depth", None),
    "at_specificity": ("at_specificity", "--at-specificity", None),
    "at_sensitivity": ("at_sensitivity", "--at-sensitivity", None),
    "roc_band": ("roc_band", "--roc-band", None),
    "constraints": ("constraints", "--constraint", None),
    "roc_bins": ("roc_bins", "--roc-bins", None),
    "prior": ("prior", "--prior", lambda text: parse_pairs(text, "--prior")),
    "clip": ("clip", "--clip", None),
    "calibration_bins": ("bins", "--bins", None),
    "calibration_strategy": ("calibration", "--calibration", _calibration_strategy),
    "calibration_parts": ("calibration", "--calibration", _calibration_parts),
    "top_k": ("top_k", "--top-k", None),
    "calibration_class": ("calibration_class", "--calibration-class", None),
    "net_benefit": ("net_benefit", "--net-benefit", None),
    "thresholds_range": ("thresholds_range", "--thresholds-range", _thresholds_range),
    "kappa_weights": ("kappa_weights", "--kappa-weights", None),
}
"""Each option of :class:`assay.Options` that the command line takes: (the click parameter, the flag, the
parser of its text or None when click gives the value)."""

FLAG_NAMES: dict[str, str] = {**{option: flag for option, (_, flag, _) in FLAGS.items()},
                              "method": "--interval", "bins": "--bins", "strategy": "--calibration"}
"""How errors name each option: its flag (with the names the library's checks use for a few)."""


def options_of(params: Mapping[str, Any], **fixed: Any) -> Any:
    """The :class:`assay.Options` of a command from its parsed parameters (those it has of :data:`FLAGS`;
    a parameter left unset is left at the option's default), with ``fixed`` options on top."""
    from assay.evaluation.options import (
        Options,  # the library, loaded once a command runs
    )

    given: dict[str, Any] = {}
    for option, (param, _, parse) in FLAGS.items():
        value = params.get(param)
        if value is None or value == ():
            continue
        parsed = parse(value) if parse is not None else value
        if parsed is not None:  # None: the text sets another option of the same flag (--calibration)
            given[option] = parsed
    try:
        return Options(**{**given, **fixed})
    except InvalidInput as e:
        raise fail(e, FLAG_NAMES) from None
