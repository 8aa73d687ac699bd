"""Reading tables in every format, confusion-matrix files, and atomic writes."""

import gzip
import io
import os
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from assay import InvalidInput
from assay.io.atomic import write_atomic
from assay.io.confusion_file import parse_confusion
from assay.io.tables import detect_format, read_columns

ROWS = {"y": ["a", "b", "a"], "p": [0.1, 0.9, 0.4]}


def _check(data):
    assert data.n_rows == 3
    assert data.columns["y"].to_pylist() == ["a", "b", "a"]
    assert [round(v, 6) for v in data.columns["p"].to_pylist()] == [0.1, 0.9, 0.4]


def test_csv(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("y,p,other\na,0.1,x\nb,0.9,y\na,0.4,z\n")
    _check(read_columns(str(path), text_columns=["y"], number_columns=["p"]))


def test_csv_gzip(tmp_path):
    path = tmp_path / "t.csv.gz"
    with gzip.open(path, "wt") as f:
        f.write("y,p\na,0.1\nb,0.9\na,0.4\n")
    _check(read_columns(str(path), text_columns=["y"], number_columns=["p"]))


def test_tsv(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_text("y\tp\na\t0.1\nb\t0.9\na\t0.4\n")
    _check(read_columns(str(path), text_columns=["y"], number_columns=["p"]))


def test_parquet(tmp_path):
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table(ROWS), path)
    _check(read_columns(str(path), text_columns=["y"], number_columns=["p"]))


def test_parquet_integer_labels_read_as_text(tmp_path):
    path = tmp_path / "t.parquet"
    pq.write_table(pa.table({"y": [0, 1, 1], "p": [0.1, 0.9, 0.4]}), path)
    data = read_columns(str(path), text_columns=["y"], number_columns=["p"])
    assert data.columns["y"].to_pylist() == ["0", "1", "1"]


def test_jsonl(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text('{"y": "a", "p": 0.1}\n{"y": "b", "p": 0.9}\n{"y": "a", "p": 0.4}\n')
    _check(read_columns(str(path), text_columns=["y"], number_columns=["p"]))


def test_stdin_is_sniffed(monkeypatch):
    for text in ("y,p\na,0.1\nb,0.9\na,0.4\n", "y\tp\na\t0.1\nb\t0.9\na\t0.4\n",
                 '{"y": "a", "p": 0.1}\n{"y": "b", "p": 0.9}\n{"y": "a", "p": 0.4}\n'):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
        _check(read_columns("-", text_columns=["y"], number_columns=["p"]))


def test_stdin_parquet(monkeypatch):
    buffer = io.BytesIO()
    pq.write_table(pa.table(ROWS), buffer)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(buffer.getvalue())))
    _check(read_columns("-", text_columns=["y"], number_columns=["p"]))


def test_labels_are_read_as_written(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("y\ntrue\nfalse\n007\n")
    data = read_columns(str(path), text_columns=["y"])
    assert data.columns["y"].to_pylist() == ["true", "false", "007"]


def test_detect_format():
    assert detect_format("x.CSV") == "csv"
    assert detect_format("x.tsv.gz") == "tsv"
    assert detect_format("x.pq") == "parquet"
    assert detect_format("x.ndjson") == "jsonl"
    assert detect_format("", b"PAR1....") == "parquet"
    assert detect_format("", b"a\tb\n1\t2") == "tsv"
    assert detect_format("data", b"a,b\n1,2") == "csv"


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("missing.csv", None, "no such file"),
        ("empty.csv", "", "is empty"),
        ("header.csv", "y,p\n", "has a header but no rows"),
        ("cols.csv", "a,b\n1,2\n", "column 'y' is not in"),
        ("bad.jsonl", "{not json\n", "cannot be read as JSONL"),
    ],
)
def test_read_errors(tmp_path, name, content, message):
    path = tmp_path / name
    if content is not None:
        path.write_text(content)
    with pytest.raises(InvalidInput, match=message):
        read_columns(str(path), text_columns=["y"])


def test_directory_is_not_a_table(tmp_path):
    with pytest.raises(InvalidInput, match="is a directory"):
        read_columns(str(tmp_path), text_columns=["y"])


def test_parse_confusion_semicolons_and_tabs():
    assert parse_confusion("x;a;b\na;1;2\nb;3;4\n").counts.tolist() == [[1, 2], [3, 4]]
    assert parse_confusion("x\ta\tb\na\t1\t2\nb\t3\t4\n").counts.tolist() == [[1, 2], [3, 4]]


def test_parse_confusion_errors():
    with pytest.raises(InvalidInput, match="repeats"):
        parse_confusion("x,a,a\na,1,2\nb,3,4\n")
    with pytest.raises(InvalidInput, match="actual class 'a' repeats"):
        parse_confusion("x,a,b\na,1,2\na,3,4\n")
    with pytest.raises(InvalidInput, match="is empty"):
        parse_confusion("  \n")


def test_write_atomic_replaces_whole(tmp_path):
    path = tmp_path / "out.txt"
    path.write_text("old content")
    write_atomic(str(path), "new")
    assert path.read_text() == "new"
    assert sorted(os.listdir(tmp_path)) == ["out.txt"]


def test_write_atomic_failure_leaves_old_file(tmp_path, monkeypatch):
    path = tmp_path / "out.txt"
    path.write_text("old content")

    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        write_atomic(str(path), "new")
    assert path.read_text() == "old content"
    assert sorted(os.listdir(tmp_path)) == ["out.txt"]
