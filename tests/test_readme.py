"""The README: what a new user reads and copies first. It opens with the two command lines (the second is the
one .ci/run runs), its examples run as written, and its links lead to the documentation's pages.

The README's former long Python section is docs/python.md now: tests/test_docs.py runs it, with the assertion
that was here (print(r) writes the terminal report).
"""

import importlib.util
import re
import sys
from pathlib import Path

from helpers import run_cli

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
FIRST_LINES = [
    "pip install . && assay demo",
    ("(command -v chromedriver >/dev/null && command -v java >/dev/null || (apt-get update && apt-get install -y "
     "chromium chromium-driver openjdk-17-jre-headless)) && pip install -e '.[test]' && python -m pytest"),
]


def _examples():
    """docs/gallery.py: how the documentation's examples are read and run (tests/test_docs.py uses it too)."""
    spec = importlib.util.spec_from_file_location("assay_docs_examples", ROOT / "docs" / "gallery.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _python_section(path: Path, title: str) -> str:
    section = path.read_text(encoding="utf-8").split(f"\n## {title}\n", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)


def test_the_readme_opens_with_the_two_command_lines_and_ci_runs_the_second():
    text = README.read_text(encoding="utf-8")
    title, rest = text.split("\n", 1)
    assert title.startswith("# assay")
    block = re.match(r"\s*```\n(.*?)\n```\n", rest, re.DOTALL)
    assert block is not None, "the README's first lines are a code block"
    assert block.group(1).splitlines() == FIRST_LINES
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert FIRST_LINES[1] in ci.splitlines(), ".ci/run runs the README's second line as it is written"


def test_the_python_section_of_the_readme_runs(capsys):
    code = _python_section(README, "Python")
    exec(compile(code, "README.md (## Python)", "exec"), {"__name__": "readme"})  # noqa: S102
    assert "assay report" in capsys.readouterr().out  # print(r) wrote the terminal report


def test_the_first_report_of_the_readme_is_the_one_assay_prints(tmp_path, monkeypatch, capsys):
    """The README's report, on the file the first report page makes (its first Python block)."""
    examples = _examples()
    monkeypatch.chdir(tmp_path)
    page = examples.blocks(ROOT / "docs" / "first-report.md")
    examples.run_python(next(b for b in page if b.lang == "python"), {})
    readme = [b for b in examples.blocks(README) if "$ assay " in b.code]
    assert readme, "the README shows a first report"
    for block in readme:
        commands = examples.commands(examples.Block(block.page, "console", block.code, block.line))
        for command in commands:
            examples.run_command(command, lambda argv: run_cli(argv, capsys))


def test_the_readme_links_lead_to_pages_that_exist():
    text = README.read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [link for link in links if not re.match(r"[a-z]+://", link)]
    assert len(local) >= 15 and all(link.startswith("docs/") for link in local), local
    for link in local:
        assert (ROOT / link).is_file(), link
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    for page in sorted((ROOT / "docs").rglob("*.md")):  # every page of the site is reachable from the README
        name = page.relative_to(ROOT).as_posix()
        assert name in local, f"the README does not link {name}"
        assert page.relative_to(ROOT / "docs").as_posix() in nav, f"mkdocs.yml's nav does not list {name}"
