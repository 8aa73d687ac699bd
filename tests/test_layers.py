"""The imports point one way, down: summaries <- metrics <- inference <- protocols <- evaluation <- engines,
report, cli. The core knows nothing above it; the protocols run models and know nothing of the evaluation;
results hand themselves to the report layer only inside a method (scikit-learn's Display pattern), so that
importing a result never imports the renderers."""

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "assay"

ABOVE = {
    "summaries": {"metrics", "inference", "evaluation", "protocols", "engines", "report", "cli", "spark"},
    "metrics": {"inference", "evaluation", "protocols", "engines", "report", "cli", "spark"},
    "inference": {"evaluation", "protocols", "engines", "report", "cli", "spark"},
    "protocols": {"evaluation", "engines", "report", "cli", "spark"},
    "evaluation": {"engines", "cli", "spark"},
}


def _imports(path: Path) -> list[tuple[str, bool]]:
    """(module imported, at module level) for every ``assay.`` import of a file."""
    tree = ast.parse(path.read_text())
    top = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("assay."):
            found.append((node.module, id(node) in top))
        elif isinstance(node, ast.Import):
            found += [(a.name, id(node) in top) for a in node.names if a.name.startswith("assay.")]
    return found


@pytest.mark.parametrize("layer", sorted(ABOVE))
def test_no_layer_imports_one_above_it(layer):
    wrong = []
    for path in sorted((SRC / layer).rglob("*.py")):
        for module, _ in _imports(path):
            if module.split(".")[1] in ABOVE[layer]:
                wrong.append(f"{path.relative_to(SRC)} imports {module}")
    assert wrong == []


def test_results_reach_the_report_layer_only_inside_a_method():
    wrong = [f"{path.relative_to(SRC)} imports {module} at module level"
             for path in sorted((SRC / "evaluation").rglob("*.py"))
             for module, top in _imports(path) if top and module.startswith("assay.report")]
    assert wrong == []
