"""Engines: where the rows are read and counted (files a batch at a time, Apache Spark), producing the
summaries whose evaluation is in :mod:`assay.evaluation`."""
