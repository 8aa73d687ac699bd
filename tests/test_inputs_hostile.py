"""Hostile inputs end in one line and exit 2: never a hang, never a false reason, never a file left behind.

Issue 22 items 1 (a non-UTF-8 table that hung the exit), 8 (standard input of ``compare``) and 9 (an
unclosed quote); issue 18 items 4 (a memory budget too small, an empty one) and 4b (a full temporary
directory).
"""

import errno
import io
import os
import signal
import subprocess
import sys
import tempfile
import threading

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from assay import InvalidInput
from assay.cli import main


def run(argv, capsys):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def one_line(status, err):
    assert status == 2 and err.startswith("assay: error: ") and err.count("\n") == 1, (status, err)
    return err


def _assay(args, cwd, env=None, stdin=None):
    return subprocess.Popen([sys.executable, "-m", "assay", *args], cwd=cwd, env=env, stdin=stdin,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


# 22.1: a table that is not UTF-8 ------------------------------------------------------------------------


def test_a_table_not_in_utf8_without_a_line_break_ends_with_exit_2_every_time(tmp_path):
    """Both files hung the exit in about 2 runs of 3 (pyarrow's transcoding of Windows-1252 called back into
    Python from its threads while the interpreter exited): each is run three times, at once."""
    (tmp_path / "j.csv").write_bytes(b"\xa7\xcc\x61\x14\x84")  # not text: a control character
    (tmp_path / "l.csv").write_bytes(("y,p,caf\xe9" * 500).encode("cp1252"))  # a header, no line break
    runs = [(name, _assay(["report", name, "--truth", "y", "--score", "p"], tmp_path))
            for name in ("j.csv", "l.csv") * 3]
    try:
        results = [(name, *process.communicate(timeout=180), process.returncode) for name, process in runs]
    finally:
        for _, process in runs:
            if process.poll() is None:
                process.kill()
    for name, out, err, code in results:
        err = err.decode()
        assert code == 2 and err.count("\n") == 1 and err.startswith("assay: error: "), (name, code, err)
        assert "1024 MiB" not in err
        if name == "j.csv":
            assert "neither UTF-8 nor Windows-1252 text: byte 0x14 on line 1 is a control character" in err
        else:
            assert "has a header but no rows (it holds no line break)" in err
            assert "l.csv is not UTF-8: it was read as Windows-1252 text" in err


@pytest.mark.parametrize("content, message", [
    (b"y,p\n1,0.5\n0,0.\x81\n", "byte 0x81 on line 3 is not a character of Windows-1252"),
    ("y,p\n1,0.5\n0,0.2\n".encode("utf-16"), "is UTF-16 text"),
    (b"y\x00,p\n1,0.5\n", "holds NUL bytes (line 1)"),
])
def test_bytes_no_text_table_holds_are_named(tmp_path, capsys, content, message):
    path = tmp_path / "t.csv"
    path.write_bytes(content)
    status, out, err = run(["report", str(path), "--truth", "y", "--score", "p"], capsys)
    assert message in one_line(status, err)


def test_windows_1252_past_the_first_bytes_is_read_as_such(tmp_path, capsys):
    path = tmp_path / "late.csv"  # UTF-8 in its first 4 KiB (all ASCII), Windows-1252 further on
    path.write_bytes(b"y,p\n" + b"bon,0.8\nmal,0.1\n" * 400 + "caf\xe9,0.5\nmal,0.2\n".encode("cp1252"))
    status, out, err = run(["report", str(path), "--truth", "y", "--pred", "y", "--format", "json"], capsys)
    assert status == 0, err
    assert "café" in out


def test_windows_1252_read_in_batches_equals_the_whole_file(tmp_path, capsys, monkeypatch):
    """A part larger than a block is transcoded into the temporary directory, which it leaves empty."""
    rng = np.random.default_rng(3)
    y = np.where(rng.random(20_000) < 0.4, "malin", "bénin")
    text = "diagnostic,p,note\n" + "".join(f"{a},{b:.4f},crème brûlée\n" for a, b in zip(y, rng.random(20_000)))
    whole = tmp_path / "whole.csv"
    whole.write_bytes(text.encode("cp1252"))
    parts = tmp_path / "parts"
    parts.mkdir()
    (parts / "part-0.csv").write_bytes(text.encode("cp1252"))
    spill = tmp_path / "tmp"
    spill.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spill))
    common = ["--truth", "diagnostic", "--score", "p", "--positive", "malin", "--format", "json"]
    status, reference, err = run(["report", str(whole), *common], capsys)
    assert status == 0, err
    status, streamed, err = run(["report", str(parts), *common, "--memory", "32MB"], capsys)
    assert status == 0, err
    import json

    a, b = json.loads(reference), json.loads(streamed)
    assert a["confusion"] == b["confusion"] and a["ranking"]["roc_auc"] == b["ranking"]["roc_auc"]
    assert os.listdir(spill) == []


# 22.9: a quote that is never closed --------------------------------------------------------------------


def test_an_unclosed_quote_in_the_header_is_named(tmp_path, capsys):
    path = tmp_path / "q1.csv"
    path.write_bytes(b'ds,"A,B\nd1,0.1,0.2\n')
    status, out, err = run(["friedman", str(path)], capsys)
    err = one_line(status, err)
    assert 'the quote that opens field 2 of the header ("A,B...) is never closed' in err and "MiB" not in err
    parts = tmp_path / "parts"
    parts.mkdir()
    (parts / "q1.csv").write_bytes(path.read_bytes())
    status, out, err = run(["report", str(parts), "--truth", "ds", "--score", "A"], capsys)
    assert "field 2 of the header" in one_line(status, err)


def test_a_header_without_a_line_break_has_no_rows(tmp_path, capsys):
    path = tmp_path / "h.csv"
    path.write_bytes(b"y,p")
    status, out, err = run(["report", str(path), "--truth", "y", "--score", "p"], capsys)
    assert "h.csv has a header but no rows" in one_line(status, err)


def test_an_unclosed_quote_further_on_is_named_by_its_line_in_batches(tmp_path, capsys):
    parts = tmp_path / "parts"
    parts.mkdir()
    rows = "".join(f"{i % 2},{i / 40_000:.4f},x\n" for i in range(20_000))
    (parts / "part-0.csv").write_text("y,p,note\n" + rows + '1,0.5,"never closed\n' + rows + rows)
    status, out, err = run(["report", str(parts), "--truth", "y", "--score", "p", "--memory", "32MB"], capsys)
    assert 'line 20,002: the quote that opens field 3 ("never closed...) is not closed' in one_line(status, err)


# 22.8: standard input of compare -----------------------------------------------------------------------

ROWS = "".join(f"{i % 2},{(i // 3) % 2},{(i // 5) % 2}\n" for i in range(300))
TABLE = "y,yhat,yhat2\n" + ROWS


def _stdin(monkeypatch, data: bytes):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


@pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_while_compare_reads_standard_input_leaves_nothing(tmp_path, signum, status):
    spill = tmp_path / "tmp"
    spill.mkdir()
    process = _assay(["compare", "-", "--truth", "y", "--pred", "yhat", "--pred", "yhat2"], tmp_path,
                     env={**os.environ, "TMPDIR": str(spill)}, stdin=subprocess.PIPE)
    body = (TABLE + ROWS * 400).encode()  # 2 MB: once written, all but a pipe's buffer of it has been read

    def write() -> None:
        try:
            process.stdin.write(body)
            process.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    writer.join(timeout=120)
    assert not writer.is_alive() and process.poll() is None  # reading standard input, which stays open
    process.send_signal(signum)
    try:
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == status, err
    assert os.listdir(spill) == []


def test_compare_reads_standard_input_without_the_temporary_directory(monkeypatch, capsys):
    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(tempfile, "NamedTemporaryFile", full)
    monkeypatch.setattr(tempfile, "mkstemp", full)
    _stdin(monkeypatch, TABLE.encode())
    status, out, err = run(["compare", "-", "--truth", "y", "--pred", "yhat", "--pred", "yhat2"], capsys)
    assert status == 0, err
    assert "yhat vs yhat2" in out


def test_errors_of_compare_on_standard_input_name_it(monkeypatch, capsys):
    _stdin(monkeypatch, TABLE.encode())
    status, out, err = run(["compare", "-", "--truth", "y", "--pred", "yhat", "--pred", "nope"], capsys)
    err = one_line(status, err)
    assert "column 'nope' is not in standard input" in err and "assay-stdin" not in err


# 18.4: the memory budget -------------------------------------------------------------------------------


@pytest.fixture
def table_of_100_kib(tmp_path):
    rng = np.random.default_rng(7)
    path = tmp_path / "p.csv"
    path.write_text("y,p\n" + "".join(f"{a},{b:.6f}\n" for a, b in zip(rng.integers(0, 2, 10_000),
                                                                         rng.random(10_000))))
    assert path.stat().st_size > 64 * 1024
    return path


@pytest.mark.parametrize("command", ["report", "curves"])
@pytest.mark.parametrize("budget, directory", [("10", False), ("1KB", False), ("31MB", True)])
def test_a_budget_below_the_minimum_is_refused_naming_it(table_of_100_kib, capsys, command, budget, directory):
    """10 bytes or 1KB send the file to be read in batches, which the budget cannot hold; 31MB would read it
    whole (it fits), but a directory is always read in batches."""
    source = table_of_100_kib.parent if directory else table_of_100_kib
    status, out, err = run([command, str(source), "--truth", "y", "--score", "p", "--memory", budget], capsys)
    err = one_line(status, err)
    assert f"--memory {budget} is below the smallest budget for data read in batches: give at least 32MB" in err


@pytest.mark.parametrize("budget", ["", "0.1"])
def test_an_empty_or_zero_budget_is_not_the_default(table_of_100_kib, capsys, budget):
    status, out, err = run(["report", str(table_of_100_kib), "--truth", "y", "--score", "p", "--memory", budget],
                           capsys)
    assert "--memory: " in one_line(status, err)


def test_the_python_api_refuses_a_budget_below_the_minimum(table_of_100_kib):
    from assay.engines.files import MIN_MEMORY, evaluate_file, rank_file

    for function in (evaluate_file, rank_file):
        with pytest.raises(InvalidInput, match="below the smallest budget") as caught:
            function(str(table_of_100_kib), truth="y", score="p", memory=10)
        assert caught.value.field == "memory"
    assert evaluate_file(str(table_of_100_kib), truth="y", score="p", memory=MIN_MEMORY).n == 10_000


# 18.4b: a full temporary directory ---------------------------------------------------------------------


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_a_full_temporary_directory_is_one_line(tmp_path, capsys, monkeypatch):
    """Every temporary file writes to /dev/full, which refuses writes as a full disk does: 600,000 scores
    with a 32MB budget send their keys there."""
    path = tmp_path / "scores.parquet"
    rng = np.random.default_rng(5)
    pq.write_table(pa.table({"y": rng.integers(0, 2, 600_000).astype(np.int8), "p": rng.random(600_000)}), path)
    monkeypatch.setattr(tempfile, "TemporaryFile", lambda *args, **kwargs: open("/dev/full", "w+b"))
    status, out, err = run(["report", str(path), "--truth", "y", "--score", "p", "--memory", "32MB"], capsys)
    err = one_line(status, err)
    assert "the temporary directory " in err
    assert " is full: this run needs about 2.3 MB there, 4.6 MB for float64 scores" in err
    assert "set TMPDIR to a directory with room, or give a larger memory budget (--memory)" in err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_a_full_temporary_directory_while_summaries_merge_is_one_line(monkeypatch):
    """The runs of the merge of summaries (Spark's partitions, ranges of one score) say it too."""
    from assay.summaries.scores import ScoreCounts
    from assay.summaries.spill import Run

    monkeypatch.setattr(tempfile, "TemporaryFile", lambda *args, **kwargs: open("/dev/full", "w+b"))
    n = 100_000
    summary = ScoreCounts(np.linspace(1, 0, n), np.ones(n, dtype=np.int64), np.ones(n, dtype=np.int64), ("0", "1"))
    with pytest.raises(InvalidInput, match="is full: this run needs about 5.3 MB there"):
        Run(summary)


def test_a_temporary_directory_too_small_is_refused_before_anything_is_written(tmp_path, capsys, monkeypatch):
    """2^20 rows of a Parquet file (its footer says how many) need their keys on disk with a 32 MB budget:
    at least 4 MB there, and the directory has 1 MB."""
    import shutil

    from assay.summaries import disk

    path = tmp_path / "many.parquet"
    rng = np.random.default_rng(6)
    pq.write_table(pa.table({"y": rng.integers(0, 2, 1 << 20).astype(np.int8), "p": rng.random(1 << 20)}), path)
    real = shutil.disk_usage
    monkeypatch.setattr(disk.shutil, "disk_usage",
                        lambda where: real(where)._replace(free=1 << 20))
    made = []
    monkeypatch.setattr(tempfile, "TemporaryFile", lambda *a, **k: made.append(1) or open(os.devnull, "w+b"))
    status, out, err = run(["report", str(path), "--truth", "y", "--score", "p", "--memory", "32MB"], capsys)
    err = one_line(status, err)
    assert "is full: this run needs about 4.0 MB there, 8.0 MB for float64 scores (it has 1.0 MB" in err
    assert made == []


def _mounted_tmpfs(directory, size):
    if os.geteuid() != 0:
        return False
    return subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(directory)],
                          capture_output=True).returncode == 0


def test_a_small_tmpfs_as_tmpdir(tmp_path):
    """The real thing where a tmpfs can be mounted (root): 600,000 distinct scores with TMPDIR on 2 MB."""
    spill = tmp_path / "small"
    spill.mkdir()
    if not _mounted_tmpfs(spill, "2m"):
        pytest.skip("cannot mount a tmpfs here")
    try:
        rng = np.random.default_rng(2)
        from pyarrow import csv

        csv.write_csv(pa.table({"y": rng.integers(0, 2, 600_000), "p": rng.random(600_000)}), tmp_path / "mid.csv")
        process = _assay(["report", "mid.csv", "--truth", "y", "--score", "p", "--memory", "32MB"], tmp_path,
                         env={**os.environ, "TMPDIR": str(spill)})
        out, err = process.communicate(timeout=300)
        err = err.decode()
        assert process.returncode == 2 and err.count("\n") == 1, err
        assert f"the temporary directory {spill} is full: this run needs about" in err
        assert os.listdir(spill) == []
    finally:
        subprocess.run(["umount", str(spill)], capture_output=True)


def test_a_write_lost_to_a_full_disk_is_not_read_back_for_ever(tmp_path):
    """numpy reports no error when a small write finds the disk full: the keys file is then shorter than
    what was written, and reading it back must stop (it looped on an empty read)."""
    code = """if True:
        import os
        import numpy as np
        from assay.summaries.partition import ScoreScan, batch_keys
        scan = ScoreScan(1024)
        rng = np.random.default_rng(0)
        for _ in range(3):
            scan.add(batch_keys(rng.random(500) < 0.5, rng.random(500)))
        os.ftruncate(scan.file.fileno(), 0)  # as if the writes had been lost
        try:
            scan.result()
        except OSError as e:
            print(e.errno)
    """
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60, cwd=tmp_path)
    assert done.stdout.decode().strip() == str(errno.ENOSPC), done.stderr.decode()
