"""The documentation site: it builds strictly and offline, it holds the CLI reference, the API reference and
the gallery's pictures, and the examples on its pages run as they are written.

How a page's examples are read and run (```python blocks in order, `$ assay ...` lines of ```console
blocks through the command line with the exit status and output shown, `<!-- skip: why -->`) is written
once, in docs/gallery.py, the MkDocs hook that also makes the gallery at build time; these tests import it.
The build runs in a subprocess started by the first test that asks for it, so that it runs on the other
core while the pages' examples run here.
"""

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import run_cli

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"
DATA = Path(__file__).resolve().parent / "data"
R_DATA = ("asah.csv", "hpc_cv.csv", "two_class_example.csv")
"""pROC's and yardstick's data sets, which pages read as a user who wrote them from R would (the pages say
how); tests/data holds copies."""


def _examples():
    spec = importlib.util.spec_from_file_location("assay_docs_examples", DOCS / "gallery.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


examples = _examples()
PAGES = sorted(DOCS.rglob("*.md"))
RUN_HERE = [p for p in PAGES if p.name != examples.GALLERY_PAGE]
"""Every page but the gallery, whose examples the build itself runs (test_the_gallery_shows_...)."""


def _page_id(path: Path) -> str:
    return path.relative_to(DOCS).as_posix()


# ------------------------------------------------------------------------------------------ the build


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    """``mkdocs build --strict`` of the repository's mkdocs.yml into a temporary directory, in a subprocess
    with no way out to the network (every proxy variable points at a closed port)."""
    work = tmp_path_factory.mktemp("docs-build")
    site = work / "site"
    closed = "http://127.0.0.1:9"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "MPLBACKEND": "Agg", "TMPDIR": str(work),
           "http_proxy": closed, "https_proxy": closed, "HTTP_PROXY": closed, "HTTPS_PROXY": closed,
           "all_proxy": closed, "ALL_PROXY": closed, "no_proxy": "", "NO_PROXY": ""}
    log = work / "build.log"  # a file, not a pipe: a full pipe would stall the build until it is read
    with log.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"),
             "--site-dir", str(site)], cwd=work, env=env, stdout=out, stderr=subprocess.STDOUT)
    yield process, site, log
    if process.poll() is None:
        process.kill()
        process.wait()


@pytest.fixture(scope="module")
def site(build):
    process, site, log = build
    process.wait(timeout=600)
    text = log.read_text(encoding="utf-8", errors="replace")
    assert process.returncode == 0, f"mkdocs build --strict failed:\n{text[-6000:]}"
    assert "WARNING" not in text, text
    return site


# ------------------------------------------------------------------------------------------ the examples


@pytest.mark.parametrize("page", RUN_HERE, ids=_page_id)
def test_the_examples_on_the_page_run(page, build, tmp_path, monkeypatch, capsys):
    import matplotlib

    matplotlib.use("Agg")
    for name in R_DATA:
        shutil.copy(DATA / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)

    def cli(argv):
        capsys.readouterr()  # what the page's Python printed before is not the command's output
        return run_cli(argv, capsys)

    examples.run_page(page, cli)
    if page.name == "python.md":  # the README's former Python section (tests/test_readme.py asserted this)
        assert "assay report" in capsys.readouterr().out  # print(r) wrote the terminal report


def test_every_example_is_one_the_tests_run():
    """A command shown with `$ assay` is in a console block (so it runs) or marked skipped, and skips are few."""
    skipped = []
    for page in PAGES:
        for block in examples.blocks(page):
            if block.skip is not None:
                skipped.append(block.where)
                assert len(block.skip) > 10, f"{block.where}: say why it must not run"
            elif block.lang not in ("python", "console"):
                assert not re.search(r"^\$ assay ", block.code, re.MULTILINE), \
                    f"{block.where}: a `$ assay` example in a ```{block.lang or 'text'} block does not run"
    assert len(skipped) <= 4, skipped


def test_the_example_reader_reads_commands_outputs_and_statuses():
    block = examples.Block("p.md", "console", "$ assay report a.csv --truth y \\\n    --pred 'b c'   # note\n"
                           "assay report\n...\n$ assay curves a.csv --kind roc > roc.csv\n"
                           "$ assay report x.csv --truth y\nassay: error: column 'y' row 3: missing value\n", 1)
    first, second, third = examples.commands(block)
    assert first.argv == ["report", "a.csv", "--truth", "y", "--pred", "b c"] and first.expected_status == 0
    assert first.where == "p.md:2" and first.output == ("assay report", "...")
    assert second.argv == ["curves", "a.csv", "--kind", "roc"] and second.redirect == "roc.csv"
    assert third.expected_status == 2
    examples.check_output(first, "assay report\nbinary classification\n")
    with pytest.raises(AssertionError, match="did not print"):
        examples.check_output(third, "assay: error: column 'y' row 4: missing value")
    examples.check_output(examples.Command("w", "assay x", ("threshold ... chosen by ...",)),
                          "threshold   0.49 chosen by Youden's J")


# ------------------------------------------------------------------------------------------ the site


def _text(html_file: Path) -> str:
    """A built page's words, tags stripped."""
    import html

    return html.unescape(re.sub(r"<[^>]+>", " ", html_file.read_text(encoding="utf-8")))


def test_the_cli_reference_is_generated_from_the_commands(site):
    raw = _text(site / "reference" / "cli.html")
    # click's \b paragraphs (the examples) keep their lines, as --help prints them (docs/gallery.py)
    assert re.search(r"\n\s*assay report preds.csv --truth y --pred yhat\s*\n\s*assay report preds.csv --truth y "
                     r"--score p --threshold 0.3", raw)
    text = " ".join(raw.split())
    for command in ("report", "validate", "compare", "curves", "friedman", "plan auc", "interval", "z"):
        assert f"assay {command}" in text, command
    assert "--threshold T Predict positive iff score >= T" in text  # report's option, with its help
    assert "--cost-method" in text and "--lower-is-better" in text


def test_the_api_reference_is_generated_from_the_docstrings(site):
    import assay

    text = " ".join(_text(site / "reference" / "api-evaluate.html").split())
    summary = assay.evaluate.__doc__.strip().splitlines()[0]
    assert summary in text  # "Evaluate a classifier's predictions: every metric with its interval, ..."
    assert "y_score" in text and "Returns" in text
    for page, names in {"api-results.html": ["Evaluation", "RankingAnalysis", "ConfidenceInterval"],
                        "api-compare.html": ["compare", "validate", "friedman"],
                        "api-inference.html": ["proportion_ci", "mcnemar", "delong_test"],
                        "api-plan.html": ["auc_power", "proportion_n"]}.items():
        built = (site / "reference" / page).read_text(encoding="utf-8")
        for name in names:
            assert re.search(rf'id="assay\.(plan\.)?{name}"', built), (page, name)


def test_the_gallery_shows_every_picture_drawn_at_build_time(site):
    page = (site / "gallery.html").read_text(encoding="utf-8")
    shown = re.findall(r'<img [^>]*src="(gallery/[^"]+)"', page)
    expected = {"plots/roc", "plots/pr", "plots/gains", "plots/lift", "plots/calibration", "plots/confusion",
                "plots/cost", "plots-iris/roc", "plots-validate/folds", "plots-regression/predicted-actual",
                "plots-regression/residuals", "plots-friedman/critical-difference"}
    assert {f"gallery/{name}" for name in expected} <= {s.rsplit(".", 1)[0] for s in shown}
    for src in shown:
        data = (site / src).read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n") if src.endswith(".png") else b"<svg" in data[:2000], src
        assert len(data) > 5_000, src  # a drawn plot, not an empty figure
        svg = site / (src.rsplit(".", 1)[0] + ".svg")  # --plots writes both
        assert svg.stat().st_size > 5_000 and b"<svg" in svg.read_bytes()[:2000], svg
    for report in ("report.html", "validate.html", "compare.html", "friedman.html"):
        assert f'href="gallery/{report}"' in page, report
        assert "<svg" in (site / "gallery" / report).read_text(encoding="utf-8"), report
    assert '<iframe src="gallery/report.html"' in page


def test_the_site_needs_no_network(site):
    """No script, style sheet, font or image from another host: the site reads offline from the disk."""
    external = re.compile(r'<(?:script|link|img|iframe|source)\b[^>]*(?:src|href)="(?:https?:)?//', re.IGNORECASE)
    for page in site.rglob("*.html"):
        if page.parent.name == "gallery":  # assay's own HTML reports: tests/test_html*.py hold them to it
            continue
        assert not external.search(page.read_text(encoding="utf-8")), page
    for style in site.rglob("*.css"):
        assert "fonts.googleapis" not in style.read_text(encoding="utf-8"), style


# ------------------------------------------------------------------------------------------ the words


SEED = re.compile(r"\bseeds?\s*0\d\d\b", re.IGNORECASE)


@pytest.mark.parametrize("path", [README, *PAGES], ids=lambda p: p.relative_to(ROOT).as_posix())
def test_user_facing_text_cites_the_standard_references_not_seed_files(path):
    """Users never see the source texts' files: the README and the documentation cite the standard reference
    (Fawcett 2006, Witten & Frank ch. 5, Mitchell ch. 5, Dietterich 1998) or describe the example."""
    found = [(i, line) for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
             if SEED.search(line)]
    assert not found, found


def test_the_api_reference_cites_the_standard_references_not_seed_files(site):
    """The API reference shows the docstrings to users: the same rule holds there."""
    found = {page.name: SEED.findall(_text(page)) for page in sorted((site / "reference").glob("api-*.html"))}
    assert not any(found.values()), found
