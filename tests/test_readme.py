"""The README's Python examples run as they are written (they are what a new user copies first)."""

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_the_python_section_of_the_readme_runs(capsys):
    text = README.read_text()
    section = text.split("\n## Python\n", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    exec(compile(code, "README.md (## Python)", "exec"), {"__name__": "readme"})  # noqa: S102
    assert "assay report" in capsys.readouterr().out  # print(r) wrote the terminal report
