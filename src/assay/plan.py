"""Power and sample size: how many instances a test set needs, and what a given one can tell.

``import assay; assay.plan.proportion_n(0.8, 0.05)``. Every function answers one
question both ways and returns a frozen result with ``solved_for``, ``method``, a
``sentence`` in plain words and ``to_dict()`` for JSON:

- :func:`proportion_n`, :func:`proportion_half_width`: a proportion's interval
  (accuracy, error rate, ...) to a given half-width (Witten & Frank ch. 5;
  Mitchell 1997 ch. 5).
- :func:`auc_power`: one AUC against 0.5, as pROC's ``power.roc.test(auc=...)``.
- :func:`auc_pair_power`, :func:`auc_pair_power_pilot`: two paired AUCs
  (Obuchowski & McClish 1997), from binormal parameters or a pilot test set.
- :func:`mcnemar_n`, :func:`mcnemar_power`: McNemar's test (Connor 1987).
- :func:`difference_n`, :func:`difference_power`: two error rates on independent
  test sets (Mitchell 1997 ch. 5).

>>> import assay
>>> assay.plan.proportion_n(0.8, 0.05, method="normal").n
246
"""

from assay.inference.power import (
    ALTERNATIVES,
    Alternative,
    AUCPairPlan,
    AUCPlan,
    DifferencePlan,
    McNemarPlan,
    ProportionPlan,
    auc_pair_power,
    auc_pair_power_pilot,
    auc_power,
    difference_n,
    difference_power,
    mcnemar_n,
    mcnemar_power,
    proportion_half_width,
    proportion_n,
)

__all__ = [
    "ALTERNATIVES",
    "Alternative",
    "AUCPairPlan",
    "AUCPlan",
    "DifferencePlan",
    "McNemarPlan",
    "ProportionPlan",
    "auc_pair_power",
    "auc_pair_power_pilot",
    "auc_power",
    "difference_n",
    "difference_power",
    "mcnemar_n",
    "mcnemar_power",
    "proportion_half_width",
    "proportion_n",
]
