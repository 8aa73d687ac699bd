"""Valid but unusual tables are read, hostile ones are refused in one line (reliability audit, items 4 and 6)."""

import bz2
import gzip
import io
import json
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assay import InvalidInput
from assay.cli import main
from assay.io.tables import NA_VALUES, read_columns, read_table

ROWS = [(i % 2, round(0.05 * (i % 20), 2)) for i in range(40)]
CSV = "y,p\n" + "".join(f"{y},{p}\n" for y, p in ROWS)


def cli(argv, capsys, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def one_line(status, err):
    assert status == 2 and err.startswith("assay: error: ") and err.count("\n") == 1, err


def test_a_header_wider_than_64_kib(tmp_path):
    names = [f"feature_{i:05d}" for i in range(5000)]
    path = tmp_path / "wide.csv"
    path.write_text(",".join(["y", "p", *names]) + "\n" + "".join(f"{y},{p}" + ",1" * 5000 + "\n" for y, p in ROWS))
    data = read_columns(str(path), text_columns=["y"], number_columns=["p"])
    assert data.n_rows == 40 and data.columns["p"].to_pylist()[:3] == [0.0, 0.05, 0.1]


def test_rows_longer_than_a_block(tmp_path):
    path = tmp_path / "long.csv"
    path.write_text("y,p,note\n" + "".join(f"{y},{p},{'x' * 300_000}\n" for y, p in ROWS))
    assert read_columns(str(path), text_columns=["y"], number_columns=["p"]).n_rows == 40


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress])
def test_compressed_data_whatever_its_name(tmp_path, compress):
    path = tmp_path / "preds.csv"  # no .gz: known by its first bytes
    path.write_bytes(compress(CSV.encode()))
    data = read_columns(str(path), text_columns=["y"], number_columns=["p"])
    assert data.n_rows == 40


def test_gzip_on_standard_input(capsys, monkeypatch):
    status, out, err = cli(["report", "-", "--truth", "y", "--score", "p"], capsys, stdin=gzip.compress(CSV.encode()),
                           monkeypatch=monkeypatch)
    assert status == 0 and "n = 40" in out, err


def test_a_bom_and_crlf(tmp_path):
    path = tmp_path / "bom.csv"
    path.write_bytes(("\ufeff" + CSV.replace("\n", "\r\n")).encode())
    assert read_columns(str(path), text_columns=["y"], number_columns=["p"]).n_rows == 40


def test_nested_columns_unused_do_not_matter_used_are_named(tmp_path, capsys):
    table = pa.table({"y": [y for y, _ in ROWS], "p": [p for _, p in ROWS], "tags": [[1, 2]] * 40,
                      "meta": [{"a": 1}] * 40})
    parquet = tmp_path / "nested.parquet"
    pq.write_table(table, parquet)
    jsonl = tmp_path / "nested.jsonl"
    jsonl.write_text("".join(json.dumps({"y": y, "p": p, "tags": [1], "meta": {"a": 1}}) + "\n" for y, p in ROWS))
    for path in (parquet, jsonl):
        assert read_columns(str(path), text_columns=["y"], number_columns=["p"]).n_rows == 40
        status, out, err = cli(["report", str(path), "--truth", "y", "--score", "tags"], capsys)
        one_line(status, err)
        assert "column 'tags' holds nested values" in err


def test_nested_columns_in_validate_are_dropped_with_a_reason(tmp_path):
    table = pa.table({"x": [float(i) for i in range(40)], "tags": [[1]] * 40, "y": ["a", "b"] * 20})
    path = tmp_path / "data.parquet"
    pq.write_table(table, path)
    data = read_table(str(path), required=["y"])
    assert set(data.columns) == {"x", "tags", "y"}


def test_repeated_column_names_are_refused(tmp_path, capsys):
    path = tmp_path / "rep.csv"
    path.write_text("y,p,p\n" + "".join(f"{y},{p},0.5\n" for y, p in ROWS))
    status, out, err = cli(["report", str(path), "--truth", "y", "--score", "p"], capsys)
    one_line(status, err)
    assert "column 'p' appears 2 times" in err and "columns 2, 3" in err
    status, out, err = cli(["validate", str(path), "--target", "y", "--model", "naive-bayes", "--folds", "2"], capsys)
    one_line(status, err)
    assert "appears 2 times" in err


def test_json_lines_rows_count_from_1_like_csv(tmp_path, capsys):
    bad = [(1, 0.2), (0, 0.3), (1, None), (0, 0.4)]
    csv_path = tmp_path / "bad.csv"
    csv_path.write_text("y,p\n" + "".join(f"{y},{'' if p is None else p}\n" for y, p in bad))
    jsonl_path = tmp_path / "bad.jsonl"
    jsonl_path.write_text("".join(json.dumps({"y": y, "p": p}) + "\n" for y, p in bad))
    parquet_path = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"y": [y for y, _ in bad], "p": [p for _, p in bad]}), parquet_path)
    for path in (csv_path, jsonl_path, parquet_path):
        status, out, err = cli(["report", str(path), "--truth", "y", "--score", "p"], capsys)
        one_line(status, err)
        assert "column 'p' row 3: missing value" in err, (path, err)


@pytest.mark.parametrize("compressed", [False, True])
def test_a_wrong_type_in_a_used_json_column_names_its_line(tmp_path, capsys, compressed):
    text = b'{"y": 1, "p": 0.2}\n{"y": 0, "p": 0.1}\n{"y": 0, "p": "high"}\n'
    path = tmp_path / "bad.jsonl"
    path.write_bytes(gzip.compress(text) if compressed else text)
    status, out, err = cli(["report", str(path), "--truth", "y", "--score", "p"], capsys)
    one_line(status, err)
    assert "column 'p' row 3: 'high' is not a number" in err


def test_a_type_change_in_an_unused_json_column_does_not_matter(tmp_path):
    path = tmp_path / "mixed.jsonl"
    path.write_text("".join(json.dumps({"y": y, "p": p, "junk": 1 if y else "a"}) + "\n" for y, p in ROWS))
    assert read_columns(str(path), text_columns=["y"], number_columns=["p"]).n_rows == 40


def test_na_as_a_class_label(tmp_path, capsys):
    path = tmp_path / "na.csv"
    path.write_text("y,yhat\n" + "".join(f"{'NA' if i % 2 else 'B'},{'NA' if i % 3 else 'B'}\n" for i in range(30)))
    status, out, err = cli(["report", str(path), "--truth", "y", "--pred", "yhat"], capsys)
    one_line(status, err)
    assert "missing value" in err
    status, out, err = cli(["report", str(path), "--truth", "y", "--pred", "yhat", "--na-values", ""], capsys)
    assert status == 0 and "'NA'" in out, err
    assert "NA" in NA_VALUES and "" in NA_VALUES


@settings(max_examples=40)
@given(st.binary(max_size=300), st.sampled_from([None, "csv", "tsv", "jsonl", "parquet"]))
def test_random_bytes_raise_only_invalid_input(tmp_path_factory, data, fmt):
    path = tmp_path_factory.mktemp("bytes") / "t.csv"
    path.write_bytes(b"y,p\n" + data)
    try:
        read_columns(str(path), text_columns=["y"], number_columns=["p"], format=fmt)
    except InvalidInput:
        pass


@pytest.mark.parametrize("cell", ["100000000000000000000", "18446744073709551616", "1e20", "-1", "1.5", "x"])
def test_confusion_file_cells_beyond_exact_counts(tmp_path, capsys, cell):
    path = tmp_path / "m.csv"
    path.write_text(f"x,a,b\na,16,5\nb,5,{cell}\n")
    status, out, err = cli(["report", "--confusion", str(path)], capsys)
    one_line(status, err)
    assert "row 3 (actual 'b'), column 'b'" in err and "not a whole count" in err


def test_confusion_counts_refuse_what_int64_cannot_hold():
    from assay import ConfusionCounts

    with pytest.raises(InvalidInput, match="cell \\(0, 1\\)"):
        ConfusionCounts(("a", "b"), [[1, 2**64], [3, 4]])
    assert ConfusionCounts(("a", "b"), [[1.0, 2], [3, 4]]).counts.tolist() == [[1, 2], [3, 4]]
