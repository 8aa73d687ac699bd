"""Every deliberate lazy import in assay: the one place they are listed, with why and what each saves.

Imports go at the top of a module, so that what a module depends on can be seen at a glance and an
import cycle fails when the module loads, not on some later call. The exceptions are listed in
:data:`LAZY`: heavy third-party packages that only some runs need, imported inside the functions that
need them, so that ``assay --help``, ``import assay`` and a small report never load them; and one rule
for the command line, the top layer. ``tests/test_layers.py`` allows an import inside a function only
when what it imports is listed here (a package or module prefix: ``"pyarrow"`` covers
``pyarrow.parquet``); a key ``"X (from Y only)"`` allows ``X`` inside the functions of ``Y`` alone.

Measured
--------
Each time is what the import costs where it runs, with what is always loaded by then imported
first (numpy; for scipy's modules also ``scipy.special``; for pyarrow's, ``pyarrow``; for rich and
jinja2, click): the least of 7 runs of, for example::

    python -c "import numpy, time; t = time.perf_counter(); import numba; print(time.perf_counter() - t)"

with Python 3.11.7 on the 2-core machine of issue 19 (shared with other work: a run may take half
as long again; the least is the most repeatable)::

    imported lazily                  saves    needed only by
    matplotlib                       0.5 s    plots (plot_*, --plots, the critical-difference diagram);
                                              the HTML page draws its charts as SVG itself
    sklearn (scikit-learn)           1.2 s    validating learners (protocols: learners, splits,
                                              pipelines) and the bundled data sets
    pyspark                          0.1 s    the Spark engine (assay.spark), which then starts a JVM
    assay.summaries.numba_kernels    0.25 s   more than MIN_SIZE (200,000) scores, or a lowess band beyond
                                              numpy's budget (some 150 distinct probabilities): it imports
                                              numba, which compiles the kernels or loads them from its cache
    scipy.stats                      0.73 s   Friedman's test (rankdata, the studentized range); all
                                              else uses scipy.special (0.24 s, at the top)
    scipy.optimize                   0.22 s   the power of an AUC test (auc_power)
    scipy.interpolate                0.23 s   the studentized range at many statistics at once
    pyarrow                          0.04 s   lists, and pandas or polars columns, given to assay.inputs;
      pyarrow.compute (after it)     0.05 s   table columns in protocols.features: numpy arrays of
      pyarrow.parquet (after it)     0.016 s  numbers, assay interval and the inference functions never
                                              load pyarrow. The readers (assay.io) import pyarrow and its
                                              CSV and JSON readers (1 ms) at the top; there
                                              pyarrow.parquet waits for a Parquet file and
                                              pyarrow.compute for labels typed by Parquet or JSON
    joblib                           0.07 s   folds fitted in parallel (n_jobs > 1)
    pandas                           0.42 s   to_frame()
    rich                             0.03 s   drawing the terminal report (assay.report.text)
    jinja2                           0.03 s   filling the HTML page's template (assay.report.html)

Two rules for assay's own modules
---------------------------------
* ``assay (from assay.cli only)``: the command line is the top layer (nothing imports it); each
  command imports the library inside its function, so that ``assay --help`` and the other commands
  do not load what they do not run. ``assay --help`` loads click and ``assay.cli`` (and
  ``assay.errors``, ``assay.io.atomic``) only.
* ``numpy (from assay.cli only)``: likewise, the two commands that handle arrays themselves (``curves``
  reading ``--at``, ``compare`` aligning rows by ``--id``) import numpy where they use it (0.08 s, least of 5:
  ``python -c "import time; t = time.perf_counter(); import numpy; print(time.perf_counter() - t)"``).
* ``assay.report.renderers (from assay.evaluation.display only)``: a result reaches its renderers
  through one door, :mod:`assay.evaluation.display`, which imports them on first use: at the top it
  would close a circle (the report imports the results it renders), and importing a result would
  load the report layer.
* ``assay (from assay.engines.spark_ranges only)``: the probe of whether Spark's executors import assay
  runs on an executor, where assay may be missing: it imports assay inside itself, and says so.

Start-up when the lower layers' imports moved to the top (issue 19)
--------------------------------------------------------------------
The source trees before and after (the lower layers alone changed), each command run 30 times and
then 40 times, alternating the trees, with compiled bytecode; the least and the median wall time::

    assay --help                                   before   87 / 110 ms   after   82 / 119 ms
                                                   before   95 / 135 ms   after   87 / 127 ms
    assay report preds.csv --truth truth           before  955 / 1186 ms  after  970 / 1186 ms
      --score score --positive pos (1,000 rows)    before  997 / 1324 ms  after 1030 / 1292 ms

No difference beyond the noise: ``assay --help`` loads the same modules, unchanged; the report loads
nine more small modules (the reader split by what each holds; ``pyarrow.json``, 1 ms), and the sum of
its modules' import times (``python -X importtime``, least of 16) was 837 ms before and 794 ms after.
"""

from __future__ import annotations

__all__ = ["LAZY"]

LAZY: dict[str, str] = {
    "matplotlib": "plots only (0.5 s)",
    "sklearn": "validating learners and the bundled data sets only (1.2 s)",
    "pyspark": "the Spark engine only (0.1 s, then a JVM)",
    "assay.summaries.numba_kernels": "imports numba: more than 200,000 scores, or a large lowess band, only (0.25 s)",
    "scipy.stats": "Friedman's test only (0.73 s)",
    "scipy.optimize": "the power of an AUC test only (0.22 s)",
    "scipy.interpolate": "the studentized range at many statistics only (0.23 s)",
    "pyarrow": "lists, pandas and polars columns, Parquet files only (0.04 s; compute 0.05 s, parquet 0.016 s)",
    "joblib": "folds fitted in parallel only (0.07 s)",
    "pandas": "to_frame() only (0.42 s)",
    "rich": "drawing the terminal report only (0.03 s)",
    "jinja2": "filling the HTML page's template only (0.03 s)",
    "assay (from assay.cli only)": "each command imports the library inside its function: assay --help stays fast",
    "numpy (from assay.cli only)": "the commands that compute load it with the library: assay --help does not (0.08 s)",
    "assay.report.renderers (from assay.evaluation.display only)": "the one door from a result to its renderers",
    "assay (from assay.engines.spark_ranges only)": "the probe run on an executor: does it import assay?",
}
"""Module prefix (or ``"X (from Y only)"``) -> why it is imported inside functions; the table above has the
times and the commands."""
