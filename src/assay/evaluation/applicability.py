"""Which options apply to which kind of predictions: an option is applied or refused, never ignored.

One table, read by every entry point: ``evaluate``, ``evaluate_confusion``, ``evaluate_batches`` (and so
``evaluate_file``) and the command line, which gives the options its user named and so refuses even an
option given at its default value. The library refuses the options whose value differs from the default.

>>> refuse_inapplicable("labels", {"lift_depth": 0.2})
Traceback (most recent call last):
...
assay.errors.InvalidInput: lift_depth= applies to two-class scores, not to predicted labels
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from assay.errors import InvalidInput
from assay.evaluation.options import DEFAULTS as OPTION_DEFAULTS
from assay.evaluation.options import at_default

__all__ = ["KINDS", "APPLIES_TO", "DEFAULTS", "Kind", "given", "refuse_inapplicable"]

Kind = Literal["labels", "scores", "probabilities"]
"""Predicted labels (or a confusion matrix), two-class scores (or the probabilities of two classes), and
the probabilities of more than two classes."""

KINDS: dict[str, str] = {
    "labels": "predicted labels",
    "scores": "two-class scores",
    "probabilities": "probabilities of more than two classes",
}
"""Each kind as the messages name it."""

_RANKING = frozenset({"scores"})
_PROBABILISTIC = frozenset({"scores", "probabilities"})

APPLIES_TO: dict[str, frozenset[str]] = {
    "threshold": _RANKING,
    "auc_interval": _RANKING,
    "fpr_range": _RANKING,
    "sensitivity_range": _RANKING,
    "lift_depth": _RANKING,
    "at_specificity": _RANKING,
    "at_sensitivity": _RANKING,
    "direction": _RANKING,
    "constraints": _RANKING,
    "roc_band": _RANKING,
    "roc_bins": _RANKING,
    "prior": _PROBABILISTIC,
    "clip": _PROBABILISTIC,
    "calibration_bins": _PROBABILISTIC,
    "calibration_strategy": _PROBABILISTIC,
    "calibration_parts": _PROBABILISTIC,
    "top_k": frozenset({"probabilities"}),
    "calibration_class": frozenset({"probabilities"}),
    "net_benefit": _RANKING,
    "thresholds_range": _RANKING,
    "costs": frozenset({"labels", "scores"}),
    "prevalence": frozenset({"labels", "scores"}),
}
"""The kinds of predictions each option applies to; an option not named here applies to every kind.

The ROC analysis (its operating points, ranges, band, bins, direction and threshold) needs two-class
scores; the probabilistic losses and the calibration need probabilities; the top-k accuracy needs more
than two classes' probabilities; the decision curve (``net_benefit``, ``thresholds_range``) needs the
probabilities of a positive class (two-class scores within [0, 1]); ``costs`` (fp, fn, tp, tn) and the deployment ``prevalence`` are those of
two classes, positive and negative (a ``cost_matrix`` serves several classes)."""

DEFAULTS: dict[str, Any] = {name: OPTION_DEFAULTS[name] for name in APPLIES_TO}
"""The value of each option in the table that means "not asked for" (its default: :class:`Options`)."""


def given(options: Mapping[str, Any]) -> list[str]:
    """The options of the table whose value differs from "not asked for", in the table's order. (A value of
    the wrong type counts as given: the option's own check then names it.)"""
    return [name for name, default in DEFAULTS.items() if name in options and not at_default(options[name], default)]


def refuse_inapplicable(kind: str, options: Mapping[str, Any] | Iterable[str], *,
                        names: Mapping[str, str] | None = None) -> None:
    """Raise InvalidInput naming every option that does not apply to ``kind``.

    ``options`` is a mapping of option to value (those at their default are not asked for) or the names of
    the options asked for; ``names`` turns option names into the caller's words (the command line's flags).
    """
    asked = given(options) if isinstance(options, Mapping) else [o for o in options if o in APPLIES_TO]
    wrong = [name for name in asked if kind not in APPLIES_TO.get(name, frozenset({kind}))]
    if not wrong:
        return
    names = names or {}
    shown = [names[name] if name in names else "{option:%s}" % name for name in wrong]
    targets = sorted({t for name in wrong for t in APPLIES_TO[name]}, key=list(KINDS).index)
    what = " or ".join(KINDS[t] for t in targets)
    listed = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]
    verb = "applies" if len(shown) == 1 else "apply"
    raise InvalidInput(f"{listed} {verb} to {what}, not to {KINDS[kind]}")
