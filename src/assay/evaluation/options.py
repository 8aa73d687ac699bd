"""The options of an evaluation: one frozen, typed object, validated once where it is made.

Every entry point (``evaluate``, ``rank``, ``evaluate_confusion``, ``evaluate_batches``, ``evaluate_file``,
``assay.spark.evaluate``, ``compare``, ``validate`` and the command line) builds an :class:`Options` from
its keywords (or takes one given as ``options=``) and hands it whole to every layer below. The defaults
live here and nowhere else; an option that does not apply to the predictions at hand is refused by name
(:mod:`assay.evaluation.applicability`), never ignored.

>>> o = Options(threshold=0.3, costs={"fn": 10})
>>> o.costs
Costs(fp=1.0, fn=10.0, tp=0.0, tn=0.0)
>>> o.asked()
['threshold', 'costs']
>>> Options(confidence=1.5)
Traceback (most recent call last):
...
assay.errors.InvalidInput: confidence: must be between 0 and 1 (exclusive), e.g. 0.95, got 1.5
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from assay.checks import (
    check_choice,
    check_confidence,
    check_integer,
    check_number,
    check_range,
    check_resamples,
    check_seed,
)
from assay.errors import InvalidInput
from assay.evaluation.costs import Costs, as_costs
from assay.evaluation.probabilistic import CALIBRATION_PARTS, check_bins, check_clip, check_parts, check_strategy
from assay.inference.bootstrap import BootstrapSettings
from assay.inference.kappa import KAPPA_WEIGHTS
from assay.inference.proportion import PROPORTION_METHODS
from assay.metrics.decision import (
    DEFAULT_THRESHOLDS_RANGE,
    check_thresholds_range,
    threshold_grid,
)

__all__ = ["Options", "options_from", "keywords_of", "NAMES", "DEFAULTS", "at_default", "THRESHOLD_CRITERIA", "DIRECTIONS",
           "AUC_INTERVALS", "PROBABILITY_OPTIONS"]

THRESHOLD_CRITERIA = {"youden": "Youden's J (the largest TPR - FPR)",
                      "closest": "the ROC point closest to the corner (0, 1)",
                      "cost": "the least expected cost"}
"""Criteria that choose a threshold on the data: ``threshold="youden"``, ``"closest"`` or ``"cost"``."""

DIRECTIONS = ("higher", "lower", "auto")
"""Which scores mean the positive class: higher (the default), lower, or chosen on the data (auto)."""

AUC_INTERVALS = ("delong", "bootstrap")
"""The intervals of the AUC: DeLong's, or a stratified percentile bootstrap."""



def _rates(values: Any, name: str) -> tuple[float, ...]:
    if values is None:
        return ()
    if isinstance(values, (int, float)) and not isinstance(values, bool):
        values = [values]
    if isinstance(values, str) or not isinstance(values, Sequence) and not hasattr(values, "__iter__"):
        raise InvalidInput(f"expected rates within [0, 1], got {values!r}", field=name)
    return tuple(check_number(v, name, low=0.0, high=1.0, what="a rate within [0, 1]") for v in values)


@dataclass(frozen=True)
class Options:
    """Every option of an evaluation, with its default (see :func:`assay.evaluate` for each one's meaning).

    Made from keywords (``Options(threshold=0.3)``) and checked at once: a bad value raises
    :class:`assay.errors.InvalidInput` naming the option. Values are normalised (costs become
    :class:`Costs`, sequences of rates become tuples), so that two equal requests compare equal.
    ``replace(**changes)`` gives a copy with some options changed (checked again).
    """

    # the threshold and which scores mean the positive class
    threshold: float | str | None = None
    direction: str = "higher"
    # intervals and tests
    confidence: float = 0.95
    interval: str = "wilson"
    auc_interval: str = "delong"
    beta: float = 1.0
    bootstrap: int = 2000
    seed: int = 0
    # costs and where the classifier will be used
    costs: Costs | None = None
    cost_matrix: Any = None
    prevalence: float | None = None
    # the ROC analysis of two-class scores
    fpr_range: tuple[float, float] | None = None
    sensitivity_range: tuple[float, float] | None = None
    lift_depth: float = 0.1
    at_specificity: tuple[float, ...] = ()
    at_sensitivity: tuple[float, ...] = ()
    roc_band: bool = False
    constraints: tuple[str, ...] = ()
    roc_bins: int | None = None
    # probabilities: losses, calibration, top-k
    prior: Any = None
    clip: float | None = None
    calibration_bins: int = 10
    calibration_strategy: str = "uniform"
    calibration_parts: tuple[str, ...] = CALIBRATION_PARTS
    calibration_class: Any = None  # a class of several: its one-vs-rest probabilities' calibration
    top_k: int | None = None
    # decision curves: net benefit at threshold probabilities (low, high, step); a range asks for the curve
    net_benefit: bool = False
    thresholds_range: tuple[float, float, float] | None = None
    # predicted labels
    kappa_weights: str | None = None
    # engines: the memory budget of a score summary, in bytes (None: no budget)
    memory: int | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        checked = dict(
            threshold=self._threshold(self.threshold),
            direction=check_choice(self.direction, DIRECTIONS, "direction"),
            confidence=check_confidence(self.confidence),
            interval=check_choice(self.interval, PROPORTION_METHODS, "method"),
            auc_interval=check_choice(self.auc_interval, AUC_INTERVALS, "auc_interval"),
            beta=check_number(self.beta, "beta", low=0.0, low_open=True, what="a positive number"),
            bootstrap=check_resamples(self.bootstrap),
            seed=check_seed(self.seed),
            costs=None if self.costs is None else as_costs(self.costs),
            prevalence=None if self.prevalence is None else check_number(
                self.prevalence, "prevalence", low=0.0, high=1.0, low_open=True, high_open=True,
                what="a share strictly between 0 and 1"),
            fpr_range=None if self.fpr_range is None else check_range(self.fpr_range, "fpr_range"),
            sensitivity_range=None if self.sensitivity_range is None else check_range(self.sensitivity_range,
                                                                                      "sensitivity_range"),
            lift_depth=check_number(self.lift_depth, "lift_depth", low=0.0, high=1.0, low_open=True,
                                    what="in (0, 1]"),
            at_specificity=_rates(self.at_specificity, "at_specificity"),
            at_sensitivity=_rates(self.at_sensitivity, "at_sensitivity"),
            roc_band=bool(self.roc_band),
            constraints=() if self.constraints is None else (self.constraints,) if isinstance(self.constraints, str)
            else tuple(str(c) for c in self.constraints),
            roc_bins=None if self.roc_bins is None else check_integer(self.roc_bins, "roc_bins", low=2,
                                                                      high=10_000_000),
            clip=check_clip(self.clip),
            calibration_bins=check_bins(self.calibration_bins),
            calibration_strategy=check_strategy(self.calibration_strategy),
            calibration_parts=check_parts(self.calibration_parts),
            top_k=None if self.top_k is None else check_integer(self.top_k, "top_k", low=1),
            net_benefit=bool(self.net_benefit) or self.thresholds_range is not None,
            thresholds_range=None if self.thresholds_range is None else check_thresholds_range(self.thresholds_range),
            kappa_weights=self._kappa_weights(self.kappa_weights),
            memory=None if self.memory is None else check_integer(self.memory, "memory", low=1),
        )
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    @staticmethod
    def _threshold(value: Any) -> float | str | None:
        if value is None:
            return None
        if isinstance(value, str):
            if value not in THRESHOLD_CRITERIA:
                raise InvalidInput(f"{value!r} is neither a number nor one of {list(THRESHOLD_CRITERIA)}",
                                   field="threshold")
            return value
        return check_number(value, "threshold")

    @staticmethod
    def _kappa_weights(value: Any) -> str | None:
        if value is None or value in KAPPA_WEIGHTS:
            return value
        raise InvalidInput(f"{value!r} is not one of {list(KAPPA_WEIGHTS)}", field="kappa_weights")

    @property
    def settings(self) -> BootstrapSettings:
        """The bootstrap's resamples and seed."""
        return BootstrapSettings(self.bootstrap, self.seed)

    @property
    def decision_thresholds(self) -> Any:
        """The threshold probabilities of the decision curve (``thresholds_range``, else 0.01 to 0.99 by 0.01)."""
        return threshold_grid(*(self.thresholds_range or DEFAULT_THRESHOLDS_RANGE))

    @property
    def threshold_costs(self) -> Costs:
        """The fp/fn costs of the threshold analysis: as given, else each error costs 1."""
        return self.costs if self.costs is not None else Costs()

    def replace(self, **changes: Any) -> Options:
        """A copy with ``changes`` (checked)."""
        return dataclasses.replace(self, **changes)

    def asked(self) -> list[str]:
        """The options whose value differs from the default, in the order of the fields (``memory``, a
        budget of the engines, is not an option of the analysis and is never listed)."""
        return [f.name for f in fields(self) if f.name != "memory" and not at_default(getattr(self, f.name), f.default)]


PROBABILITY_OPTIONS = ("prior", "clip", "calibration_bins", "calibration_strategy", "calibration_parts",
                       "calibration_class")
"""The options of the probabilities' losses and calibration (a one-screen report says their sentences when one
is asked for)."""

NAMES = tuple(f.name for f in fields(Options))
"""The names of every option, in order."""

DEFAULTS: dict[str, Any] = {f.name: f.default if f.default is not dataclasses.MISSING else f.default_factory()
                            for f in fields(Options)}
"""The default of every option: the one place defaults live."""


def keywords_of(namespace: Mapping[str, Any]) -> dict[str, Any]:
    """The options among a function's arguments (``keywords_of(locals())`` at its start): its keywords that
    are options, by their names here."""
    return {name: namespace[name] for name in NAMES if name in namespace}


def options_from(options: Options | None, keywords: Mapping[str, Any]) -> Options:
    """The options of a call: ``options`` (or the defaults) with every keyword that differs from its
    default applied on top. So ``evaluate(y, p, threshold=0.3)`` and
    ``evaluate(y, p, options=Options(threshold=0.3))`` are the same call."""
    if options is not None and not isinstance(options, Options):
        raise InvalidInput(f"expected an assay Options object, got {type(options).__name__}", field="options")
    changes = {name: value for name, value in keywords.items() if not at_default(value, DEFAULTS[name])}
    if options is None:
        return Options(**changes)
    return options.replace(**changes) if changes else options


def at_default(value: Any, default: Any) -> bool:
    """A keyword left at its default (an empty sequence counts as the empty default)."""
    if value is None:
        return default is None or default == ()
    if default == () and not isinstance(value, str) and hasattr(value, "__len__"):
        try:
            return len(value) == 0
        except TypeError:
            return False
    try:
        return bool(value == default) and (type(value) is not bool or value is default)
    except Exception:
        return False
