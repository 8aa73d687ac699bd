"""The imports point one way, down: summaries <- metrics <- inference <- protocols <- evaluation <- engines,
report, cli. The core knows nothing above it; the protocols run models and know nothing of the evaluation;
results hand themselves to the report layer only inside a method (scikit-learn's Display pattern), so that
importing a result never imports the renderers.

Issue 19 (the house): no module imports another module's private names; an import inside a function is one
of the deliberate lazy imports listed in :mod:`assay.lazy_imports`; and no circle among the modules
(imports at the top and inside functions both count; ``if TYPE_CHECKING:`` blocks do not). The lower
layers (io, summaries, metrics, inference, protocols, inputs, checks) are held to it by three tests that name
them, and the whole package by three more."""

import ast
import re
from functools import cache
from pathlib import Path
from typing import NamedTuple

import pytest

from assay.lazy_imports import LAZY

SRC = Path(__file__).resolve().parent.parent / "src" / "assay"

ABOVE = {
    "summaries": {"metrics", "inference", "evaluation", "protocols", "engines", "report", "cli", "spark"},
    "metrics": {"inference", "evaluation", "protocols", "engines", "report", "cli", "spark"},
    "inference": {"evaluation", "protocols", "engines", "report", "cli", "spark"},
    "protocols": {"evaluation", "engines", "report", "cli", "spark"},
    "evaluation": {"engines", "cli", "spark"},
}

LOWER = ("assay.io", "assay.summaries", "assay.metrics", "assay.inference", "assay.protocols", "assay.inputs",
         "assay.checks", "assay.errors", "assay.limits", "assay.lazy_imports")
"""The lower layers, held to issue 19 already (the modules named so, and those under the packages)."""

ALLOWED_CYCLES: dict[str, str] = {
    "assay.evaluation.display -> assay.report.renderers": "the one door from a result to its renderers: it imports assay.report.renderers "
                                "inside a function, and the report imports the results it renders (its "
                                "docstring, 'Why one lazy import')",
}
"""The imports that may close an import circle ("importer -> imported"), with the reason (said in the
importer's docstring too): the circles are looked for among all the other imports."""


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


# ------------------------------------------------------------------------------------------------------------
# issue 19: private names, imports inside functions, circles


class Import(NamedTuple):
    importer: str  # the module the statement is in
    line: int
    targets: tuple[str, ...]  # the modules it may load: "a.b" for ``import a.b``; "a" and "a.n" for ``from a import n``
    names: tuple[str, ...]  # the names a ``from`` import takes ("" for ``import a.b``)
    in_function: bool

    def where(self) -> str:
        return f"{self.importer} line {self.line}"


@cache
def _modules(root: Path = SRC) -> dict[str, Path]:
    """Every module of the package, by dotted name (a package by its own name)."""
    modules = {}
    for path in root.rglob("*.py"):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def _absolute(module: str, path: Path, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _in_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


@cache
def _all_imports(root: Path = SRC) -> tuple[Import, ...]:
    """Every import statement of the package, but those under ``if TYPE_CHECKING:``."""
    found = []
    for module, path in sorted(_modules(root).items()):
        tree = ast.parse(path.read_text())

        def visit(node: ast.AST, in_function: bool) -> None:
            for child in ast.iter_child_nodes(node):
                if _in_type_checking(child):
                    continue
                if isinstance(child, ast.Import):
                    for alias in child.names:
                        found.append(Import(module, child.lineno, (alias.name,), ("",), in_function))
                elif isinstance(child, ast.ImportFrom):
                    source = _absolute(module, path, child)
                    names = tuple(a.name for a in child.names)
                    targets = (source, *(f"{source}.{n}" for n in names if n != "*"))
                    found.append(Import(module, child.lineno, targets, names, in_function))
                visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)))

        visit(tree, False)
    return tuple(found)


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _is_lower(module: str) -> bool:
    return any(_under(module, layer) for layer in LOWER)


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _private_imports(root: Path = SRC) -> list[str]:
    """Imports of another module's private names (``_name``), or of a private module (``assay.x._y``)."""
    wrong = []
    for imp in _all_imports(root):
        source = imp.targets[0]
        if not _under(source, "assay") or source == imp.importer:
            continue
        if imp.names == ("",):
            if any(_private(part) for part in source.split(".")):
                wrong.append(f"{imp.where()}: import {source}")
        elif any(_private(part) for part in source.split(".")):
            wrong.append(f"{imp.where()}: from {source} import {', '.join(imp.names)}")
        elif any(_private(name) for name in imp.names):
            wrong.append(f"{imp.where()}: from {source} import {', '.join(n for n in imp.names if _private(n))}")
    return wrong


_ONLY = re.compile(r"^(?P<target>[\w.]+) \(from (?P<importer>[\w.]+) only\)$")


def _lazy_allowed(imp: Import) -> bool:
    """Whether an import inside a function is one that :data:`assay.lazy_imports.LAZY` lists."""
    for key in LAZY:
        only = _ONLY.match(key)
        target, importer = (only["target"], only["importer"]) if only else (key, None)
        if importer is not None and not _under(imp.importer, importer):
            continue
        # ``from a import n``: allowed when ``a`` is listed (``from sklearn.tree import X``) or ``a.n`` is
        # (``from scipy import optimize``, ``from assay.summaries import numba_kernels``)
        source, *submodules = imp.targets
        if _under(source, target) or (submodules and all(_under(t, target) for t in submodules)):
            return True
    return False


def _unlisted_lazy_imports(root: Path = SRC) -> list[str]:
    return [f"{imp.where()}: {', '.join(imp.targets[:1] if imp.names == ('',) else imp.targets[1:])}"
            for imp in _all_imports(root) if imp.in_function and not _lazy_allowed(imp)]


def _graph(root: Path = SRC) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (at the top or inside functions)."""
    modules = _modules(root)
    edges: dict[str, set[str]] = {m: set() for m in modules}
    for imp in _all_imports(root):
        source, *submodules = imp.targets
        loaded = [t for t in submodules if t in modules] if imp.names != ("",) else []
        if imp.names == ("",) or len(loaded) < len(submodules):
            loaded.append(source)  # ``from a import name`` loads ``a``
        edges[imp.importer].update(m for m in loaded if m in modules and m != imp.importer)
    return edges


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


def _circles(root: Path = SRC) -> list[list[str]]:
    edges = {m: {t for t in ts if f"{m} -> {t}" not in ALLOWED_CYCLES} for m, ts in _graph(root).items()}
    return _cycles(edges)


def test_no_module_imports_a_private_name_of_another():
    assert _private_imports() == []


def test_every_import_inside_a_function_is_a_listed_lazy_one():
    assert _unlisted_lazy_imports() == []


def test_no_circle_among_the_modules():
    assert _circles() == []


def test_the_lazy_imports_and_the_circles_allowed_are_documented():
    import assay.lazy_imports

    assert [key for key in LAZY if key not in assay.lazy_imports.__doc__] == []
    for edge, reason in ALLOWED_CYCLES.items():
        module = edge.split(" -> ")[0]
        doc = ast.get_docstring(ast.parse(_modules()[module].read_text())) or ""
        assert reason and ("circle" in doc or "cycle" in doc), module


def test_no_private_name_imported_in_the_lower_layers():
    assert [w for w in _private_imports() if _is_lower(w.split(" ")[0])] == []


def test_imports_inside_functions_are_listed_lazy_ones_in_the_lower_layers():
    assert [w for w in _unlisted_lazy_imports() if _is_lower(w.split(" ")[0])] == []


def test_no_circle_through_the_lower_layers():
    assert [c for c in _circles() if any(_is_lower(m) for m in c)] == []


# the checks themselves, on small made-up packages -----------------------------------------------------------


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "assay"
    for name, text in {"__init__.py": "", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_the_checks_find_what_they_look_for(tmp_path):
    root = _package(tmp_path, {
        "a.py": "from assay.b import _helper, public\nfrom . import _kernels\n",
        "b.py": "import os\n\ndef f():\n    from assay.a import x\n    import json\n    import sklearn.tree\n"
                "    from scipy import optimize\n    from scipy import special\n",
        "_kernels.py": "",
        "c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from assay.d import D\n",
        "d.py": "from assay.c import x\n",
        "cli/__init__.py": "def main():\n    from assay.a import run\n",
    })
    assert _private_imports(root) == ["assay.a line 1: from assay.b import _helper",
                                      "assay.a line 2: from assay import _kernels"]
    assert _unlisted_lazy_imports(root) == ["assay.b line 4: assay.a.x", "assay.b line 5: json",
                                            "assay.b line 8: scipy.special"]
    assert _circles(root) == [["assay.a", "assay.b"]]  # c -> d only under TYPE_CHECKING: no circle


def test_the_command_line_starts_without_the_lazy_modules():
    """``assay`` and its command line import none of the modules :mod:`assay.lazy_imports` keeps for the one use
    that needs them (scipy.stats takes 0.7 s; a signal during its import once gave an internal error)."""
    import subprocess
    import sys

    code = ("import sys, assay, assay.cli, assay.evaluation.evaluate, assay.evaluation.stream\n"
            "print(','.join(m for m in ('scipy.stats', 'scipy.optimize', 'scipy.interpolate', 'pyspark') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""
