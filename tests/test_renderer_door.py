"""Results reach their renderers through one declared door (issue 19, item 3): ``assay.evaluation.display``,
whose one function ``renderers()`` holds the evaluation package's only import of ``assay.report``; the report
layer (``assay.report.renderers``) finds each result's renderer by its type. Inside ``assay.report`` no module
imports another's private names, imports sit at the top (but the deliberate lazy imports of matplotlib, rich
and jinja2), and no circle remains.

Oracles: the same text, HTML and plots as the renderers give when called by name (``render_blocks_text`` of
each result's document, ``render_fragment``, ``plot_*``); the import structure read from the source with
``ast``.
"""

import ast
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from matplotlib.figure import Figure

import assay
from assay import InvalidInput
from assay.evaluation import display
from test_layers import _cycles, _graph  # one import graph and one cycle finder for the package

SRC = Path(__file__).resolve().parent.parent / "src" / "assay"

DOOR = SRC / "evaluation" / "display.py"

LAZY_THIRD_PARTY = {"matplotlib", "rich", "jinja2"}
"""The heavy third-party packages the report layer imports inside functions, on purpose (start-up time)."""


def _imports(path: Path):
    """(module imported, names, enclosing function or None, line) for every import of a file (assay has no
    relative imports)."""
    tree = ast.parse(path.read_text())
    found = []

    def visit(node, function):
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
            if isinstance(child, ast.ImportFrom):
                assert not child.level, f"{path}: a relative import"
                found.append((child.module, [a.name for a in child.names], function, child.lineno))
            elif isinstance(child, ast.Import):
                found.extend((a.name, [], function, child.lineno) for a in child.names)
            visit(child, inner)

    visit(tree, None)
    return found




def test_only_the_door_imports_the_report_layer_and_only_inside_its_one_function():
    wrong = []
    for path in sorted((SRC / "evaluation").rglob("*.py")):
        for module, names, function, line in _imports(path):
            if not (module == "assay.report" or module.startswith("assay.report.")):
                continue
            where = f"{path.name}:{line} in {function or 'the module'}"
            if path == DOOR and function == "renderers":
                continue
            wrong.append(where)
    assert wrong == []
    door = [(module, names) for module, names, function, _ in _imports(DOOR) if module.startswith("assay.report")]
    assert door == [("assay.report", ["renderers"])]


def test_importing_a_result_imports_no_renderer_and_printing_one_no_plotting():
    code = ("import sys\n"
            "import assay.evaluation.result, assay.evaluation.regression, assay.evaluation.regression_validation\n"
            "before = sorted(m for m in sys.modules if m.startswith('assay.report') or m in "
            "('matplotlib', 'rich', 'jinja2'))\n"
            "import assay\n"
            "r = assay.evaluate(['a', 'b', 'b', 'a'], y_pred=['a', 'b', 'a', 'a'], positive='b')\n"
            "str(r); r._repr_html_()\n"
            "print(before, 'matplotlib' in sys.modules, 'jinja2' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.split() == ["[]", "False", "False"]


# ---------------------------------------------------------------------------------------------------------------------
# every result through the door: the renderers' own output


@pytest.fixture(scope="module")
def results():
    y = [1, 1, 0, 0, 1, 0, 1, 0, 0, 1, 1, 0] * 3
    s = np.linspace(0.05, 0.95, len(y))
    noisy = np.clip(s[::-1] * 0.3 + s * 0.7, 0, 1)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(40, 2))
    t = x @ [1.0, -1.0] + rng.normal(size=40)
    return {
        "evaluation": assay.evaluate(y, y_score=s, threshold=0.5, positive=1, bootstrap=100),
        "ranking": assay.rank(y, y_score=s, positive=1),
        "comparison": assay.compare(y, {"y_score": s}, {"y_score": noisy}, names=("a", "b"), positive=1,
                                    bootstrap=100),
        "validation": assay.validate(dataset="iris", models=["naive-bayes", "zero-r"], folds=3, bootstrap=100),
        "regression": assay.evaluate_regression(t, t + rng.normal(size=40), bootstrap=100),
        "regression_validation": assay.validate(x, t, models=["linear", "zero-r"], folds=3, bootstrap=100),
    }


def test_the_report_layer_holds_a_document_for_every_result_type(results):
    renderers = display.renderers()
    assert renderers.__name__ == "assay.report.renderers"
    from assay.evaluation.validation import ValidationOverDatasets

    default = renderers.document.dispatch(object)
    for cls in [type(r) for r in results.values()] + [ValidationOverDatasets, assay.FriedmanResult]:
        assert renderers.document.dispatch(cls) is not default, cls.__name__
    with pytest.raises(TypeError, match="no report for a dict"):
        renderers.document({})


def test_str_and_the_notebook_view_are_what_the_renderers_give(results):
    from assay.report.comparison import comparison_document
    from assay.report.document import evaluation_document
    from assay.report.html import render_fragment
    from assay.report.ranking import ranking_document
    from assay.report.regression import regression_document
    from assay.report.text import render_blocks_text
    from assay.report.validation import regression_validation_document, validation_document

    documents = {"evaluation": evaluation_document, "ranking": ranking_document,
                 "comparison": comparison_document, "validation": validation_document,
                 "regression": regression_document, "regression_validation": regression_validation_document}
    for name, r in results.items():
        expected = render_blocks_text(documents[name](r), color=False)
        assert str(r) == display.text(r) == expected, name
        assert r._repr_html_() == display.fragment(r) == render_fragment(r), name
    brief = display.text(results["evaluation"], brief=True)
    assert brief == render_blocks_text(evaluation_document(results["evaluation"], brief=True), color=False)
    assert brief != str(results["evaluation"])


def test_plots_through_the_door_take_the_figures_own_options(results):
    from assay.report.plots import plot_lift

    r = results["evaluation"]
    through, direct = Figure().subplots(), Figure().subplots()
    # "kind" is plot_lift's own option: the door's first arguments are positional only, so it reaches it
    display.plot(r, "lift", through, kind="lift")
    plot_lift(r, direct, kind="lift")
    assert [line.get_label() for line in through.get_lines()] == [line.get_label() for line in direct.get_lines()]
    assert r.plot_lift(Figure().subplots(), kind="lift").get_ylabel() == "Lift (precision / prevalence)"
    assert results["regression"].plot_residuals(Figure().subplots()).get_title() == "Residuals against predicted"
    with pytest.raises(InvalidInput, match="'roc'"):
        display.plot(r, "violin")


# ---------------------------------------------------------------------------------------------------------------------
# inside the report layer


def test_report_modules_import_assay_at_the_top_and_only_heavy_packages_inside_functions():
    wrong = [f"{path.name}:{line} imports {module} inside {function}"
             for path in sorted((SRC / "report").glob("*.py"))
             for module, _, function, line in _imports(path)
             if function is not None and module.split(".")[0] not in LAZY_THIRD_PARTY]
    assert wrong == []


def test_no_circle_inside_the_report_layer_and_none_through_it_but_the_door():
    graph = _graph()
    report = {m: {t for t in ts if t.startswith("assay.report")} for m, ts in graph.items()
              if m.startswith("assay.report")}
    assert _cycles(report) == []
    up = sorted((m, t) for m, ts in graph.items() if m.startswith("assay.evaluation")
                for t in ts if t.startswith("assay.report"))
    assert up == [("assay.evaluation.display", "assay.report.renderers")]
    without_door = {m: ts - {"assay.report.renderers"} if m == "assay.evaluation.display" else ts
                    for m, ts in graph.items()}
    assert not [c for c in _cycles(without_door) if any(m.startswith("assay.report") for m in c)]


def test_the_plots_keep_their_public_names_after_the_split():
    from assay.report import plots

    for name in ("CONFUSION_NORMALIZATIONS", "LIFT_KINDS", "PLOT_FORMATS", "ConfusionNormalization", "LiftKind",
                 "plot_calibration", "plot_confusion", "plot_cost", "plot_folds", "plot_lift", "plot_pr",
                 "plot_roc", "save_plots", "write_figures"):
        assert hasattr(plots, name), name
    from assay.report.document import Block, Heading, Paragraph, Table, ranking_document, regression_document

    assert Table(["a"], [["1"]]).alignment() == "l" and {Block, Heading, Paragraph}
    assert ranking_document.__module__ == "assay.report.ranking"
    assert regression_document.__module__ == "assay.report.regression"
