"""The documentation's examples, read and run one way, and the gallery made from them at build time.

MkDocs loads this file as a hook (``hooks:`` in mkdocs.yml). While the site builds, it runs the code
blocks of ``gallery.md`` in a temporary directory, exactly as a reader would type them (the Python blocks
make the data from data sets that scikit-learn ships; the ``$ assay ...`` lines run the command line in this
process), and adds every file they write to the site under ``gallery/``: the pictures that page shows are
the ones those commands drew, on this build, from this version of assay. Nothing is fetched.

``tests/test_docs.py`` imports the same reader and runner to run every other page's examples, so that a
page's examples and the gallery obey one convention:

- a ```` ```python ```` block runs; the blocks of a page run in order in one namespace, each building on
  the ones before it, in a fresh working directory for the page;
- in a ```` ```console ```` block, a line starting with ``$ assay `` runs through the command line
  (``assay.cli.main``), continued by a trailing backslash, with ``> FILE`` sending its output to a file;
  the lines under it, up to the next ``$``, are its output: each of them must be found, in that order and
  with runs of blanks taken as one, in a line of what the command printed, where ``...`` stands for
  anything left out (a ``...`` line alone, for lines left out). A shown output starting with
  ``assay: error:`` means exit status 2, any other 0. Other ``$`` lines (``pip``, ``mkdocs``) are not run;
- a block that must not run (it needs a Spark cluster, say) has ``<!-- skip: why -->`` on the line just
  before its fence. Use it sparingly: every skip is counted by the tests.

Two more things while the site builds: the API reference imports the package, so ``assay.__main__`` (which
runs the command line when imported) is given a stand-in; and mkdocs-click is given the commands' help with
click's ``\b`` paragraphs (their examples) as preformatted text, as ``--help`` prints them.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import os
import re
import shlex
import shutil
import sys
import tempfile
import textwrap
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

DOCS = Path(__file__).resolve().parent
GALLERY_PAGE = "gallery.md"
GALLERY_DIR = "gallery"
SHOWN = {".png", ".svg", ".html", ".csv", ".json"}
"""The kinds of file the gallery's commands write that the site serves."""

_FENCE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<fence>`{3,})(?P<lang>[\w+-]*)[^\n]*\n(?P<code>.*?)^(?P=indent)(?P=fence)[ \t]*$",
    re.MULTILINE | re.DOTALL)
_SKIP = re.compile(r"<!--\s*skip:\s*(?P<why>.+?)\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    """A fenced code block of a page: its language, its code (dedented), its first line in the page (1-based,
    the fence's), and why it must not run (``None``: it runs)."""

    page: str
    lang: str
    code: str
    line: int
    skip: str | None = None

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


@dataclass(frozen=True)
class Command:
    """One ``$ assay ...`` line of a console block and the output shown under it."""

    where: str
    text: str
    output: tuple[str, ...] = field(default=())

    @property
    def words(self) -> list[str]:
        return shlex.split(self.text, comments=True)

    @property
    def argv(self) -> list[str]:
        """The arguments after ``assay``, without a ``> FILE`` redirection."""
        words = self.words
        return words[1:words.index(">")] if ">" in words else words[1:]

    @property
    def redirect(self) -> str | None:
        words = self.words
        return words[words.index(">") + 1] if ">" in words else None

    @property
    def expected_status(self) -> int:
        shown = [line for line in self.output if line.strip()]
        return 2 if shown and shown[0].startswith("assay: error:") else 0


def blocks(path: Path) -> list[Block]:
    """Every fenced code block of a Markdown page, in order."""
    text = path.read_text(encoding="utf-8")
    found = []
    for m in _FENCE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        before = [s for s in text[:m.start()].splitlines() if s.strip()]
        skip = _SKIP.search(before[-1]) if before else None
        indent = len(m.group("indent"))
        code = "".join(s[indent:] if s[:indent].strip() == "" else s for s in m.group("code").splitlines(True))
        found.append(Block(path.name, m.group("lang").lower(), code, line, skip.group("why") if skip else None))
    return found


def commands(block: Block) -> list[Command]:
    """The ``$ assay ...`` lines of a console block, each with the output shown under it."""
    lines = block.code.splitlines()
    found, i = [], 0
    while i < len(lines):
        if not lines[i].startswith("$ "):
            i += 1
            continue
        start, text = i, lines[i][2:]
        while text.endswith("\\") and i + 1 < len(lines):
            i += 1
            text = text[:-1] + " " + lines[i].strip()
        i += 1
        output = []
        while i < len(lines) and not lines[i].startswith("$ "):
            output.append(lines[i])
            i += 1
        if text.startswith("assay "):
            found.append(Command(f"{block.page}:{block.line + 1 + start}", text, tuple(output)))
    return found


def _collapse(text: str) -> str:
    return " ".join(text.split())


def check_output(command: Command, printed: str) -> None:
    """Every line shown under the command is found in a line of what it printed, in order (blanks collapsed,
    ``...`` standing for anything)."""
    lines = [_collapse(line) for line in printed.splitlines()]
    at = 0
    for shown in command.output:
        want = _collapse(shown)
        if not want or want == "...":
            continue
        pattern = re.compile(".*?".join(re.escape(piece.strip()) for piece in want.split("...")))
        for j in range(at, len(lines)):
            if pattern.search(lines[j]):
                at = j + 1
                break
        else:
            raise AssertionError(f"{command.where}: `{command.text}` did not print, in this order:\n  {shown}\n"
                                 f"it printed:\n{printed}")


def run_command(command: Command, run_cli: Callable[[list[str]], tuple[int, str, str]]) -> None:
    """Run one ``$ assay`` line with ``run_cli(argv) -> (status, stdout, stderr)`` in the working directory."""
    if "|" in command.words:
        raise AssertionError(f"{command.where}: a `$ assay` line cannot be piped: {command.text}")
    status, out, err = run_cli(command.argv)
    if status != command.expected_status:
        raise AssertionError(f"{command.where}: `{command.text}` exited {status}, the page says "
                             f"{command.expected_status}\n{err or out}")
    if command.redirect is not None:
        Path(command.redirect).write_text(out, encoding="utf-8")
    check_output(command, out + err)


def run_python(block: Block, namespace: dict) -> None:
    """Run a Python block in the page's namespace; a traceback names the page and its line."""
    code = "\n" * block.line + block.code
    exec(compile(code, block.page, "exec"), namespace)  # noqa: S102 - the page's own example


def run_page(path: Path, run_cli: Callable[[list[str]], tuple[int, str, str]]) -> int:
    """Run every block of a page that runs, in order, in the current directory; the number of blocks run."""
    namespace: dict = {"__name__": f"docs.{path.stem}"}
    ran = 0
    for block in blocks(path):
        if block.skip is not None:
            continue
        if block.lang == "python":
            run_python(block, namespace)
            ran += 1
        elif block.lang == "console":
            for command in commands(block):
                run_command(command, run_cli)
            ran += 1
    return ran


def in_process(argv: list[str]) -> tuple[int, str, str]:
    """The command line in this process: (exit status, standard output, standard error)."""
    from assay.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


@contextlib.contextmanager
def working_directory(path: Path) -> Iterator[None]:
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def make_gallery(directory: Path) -> list[Path]:
    """Run the gallery page's examples in ``directory``; the files they wrote that the site shows."""
    import matplotlib

    matplotlib.use("Agg")  # no display while the site builds
    with working_directory(directory):
        run_page(DOCS / GALLERY_PAGE, in_process)
    return sorted(p for p in directory.rglob("*") if p.is_file() and p.suffix in SHOWN)


# ------------------------------------------------------------------------------------------ MkDocs events

_made: dict[str, Path] = {}


def click_description(ctx, remove_ascii_art: bool = False) -> Iterator[str]:
    """A command's help as Markdown for mkdocs-click, with click's ``\\b`` paragraphs (the examples, kept
    unwrapped in ``--help``) as preformatted text: mkdocs-click gives them as prose, which joins their lines.
    A ``\\b`` paragraph whose first line is a heading ("Examples:") keeps it as a line of prose."""
    help_string = ctx.command.help or ctx.command.short_help
    if not help_string:
        return
    lines = inspect.cleandoc(help_string).splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() != "\b":
            yield lines[i]
            i += 1
            continue
        block = []
        i += 1
        while i < len(lines) and lines[i].strip():
            block.append(lines[i])
            i += 1
        if block and block[0].rstrip().endswith(":") and not block[0].startswith(" "):
            yield block.pop(0)
            yield ""
        if block:
            yield "```text"
            yield from textwrap.dedent("\n".join(block)).splitlines()
            yield "```"
        yield ""
    yield ""


def on_config(config):
    # The API reference imports the package (mkdocstrings' inspection, see mkdocs.yml) and with it every
    # submodule; ``assay/__main__.py`` runs the command line when imported, as ``python -m assay`` needs.
    # A stand-in keeps it from running ``assay build --strict`` inside the build.
    sys.modules.setdefault("assay.__main__", types.ModuleType("assay.__main__"))
    import mkdocs_click._docs

    mkdocs_click._docs._make_description = click_description
    return config


def on_files(files, config):
    from mkdocs.exceptions import PluginError
    from mkdocs.structure.files import File

    directory = Path(tempfile.mkdtemp(prefix="assay-gallery-"))
    _made["dir"] = directory
    try:
        made = make_gallery(directory)
    except Exception as e:  # the build fails, naming the example
        raise PluginError(f"the gallery's examples failed: {type(e).__name__}: {e}") from e
    for path in made:
        uri = f"{GALLERY_DIR}/{path.relative_to(directory).as_posix()}"
        files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files


def on_post_build(config):
    directory = _made.pop("dir", None)
    if directory is not None:
        shutil.rmtree(directory, ignore_errors=True)


def on_build_error(error):
    on_post_build(None)
