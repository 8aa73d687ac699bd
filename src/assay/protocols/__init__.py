"""Splitting and resampling: estimate a learner's error on a data set without leakage."""

from assay.protocols.estimates import MethodEstimate, fold_metrics, method_estimate
from assay.protocols.features import Features, features_from_columns, features_from_dataset
from assay.protocols.learners import LEARNERS, make_model
from assay.protocols.run import ProtocolRun, run_protocol
from assay.protocols.splits import METHODS, Split, make_splits

__all__ = ["Features", "LEARNERS", "METHODS", "MethodEstimate", "ProtocolRun", "Split", "features_from_columns",
           "features_from_dataset", "fold_metrics", "make_model", "make_splits", "method_estimate", "run_protocol"]
