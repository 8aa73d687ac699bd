"""CSV files as spreadsheets write them: the delimiter (comma, semicolon, tab, bar), the decimal comma, a
byte-order mark and Windows-1252 text are sniffed, or given with --delimiter and --decimal; the report is
the one of the same data written plainly, in memory and read in batches."""

import json

import pytest

from assay.cli import main
from assay.io.tables import Dialect, read_table, sniff_dialect

PLAIN = "diagnosis,p_malignant\nbenign,0.12\nmalignant,0.93\nbenign,0.45\nmalignant,0.61\nbenign,0.08\nmalignant,0.4\n"


def european(text: str) -> str:
    """The same table as a European spreadsheet writes it: semicolons and decimal commas."""
    return text.replace(",", ";").replace(".", ",")


@pytest.mark.parametrize("head, fmt, expected", [
    (b"a,b\n1,2\n", "csv", Dialect(",", ".", "utf8")),
    (b"a;b\n1,5;2\n", "csv", Dialect(";", ",", "utf8")),
    (b"a;b\n1.5;2\n", "csv", Dialect(";", ".", "utf8")),
    (b"\xef\xbb\xbfa;b\nx;0,25\n", "csv", Dialect(";", ",", "utf8")),
    (b"a\tb\n1,5\t2\n", "csv", Dialect("\t", ",", "utf8")),
    (b"a|b|c\n1|2|3\n", "csv", Dialect("|", ".", "utf8")),
    (b'"x,y";b;c\n1;2;3\n', "csv", Dialect(";", ".", "utf8")),  # a comma inside quotes does not count
    (b"caf\xe9;p\nja;0,9\n", "csv", Dialect(";", ",", "cp1252")),
    (b"a\tb\n1\t2\n", "tsv", Dialect("\t", ".", "utf8")),
    (b"only\n1\n", "csv", Dialect(",", ".", "utf8")),
])
def test_the_dialect_is_sniffed_from_the_first_bytes(head, fmt, expected):
    assert sniff_dialect(head, fmt) == expected


def test_a_given_delimiter_or_decimal_wins():
    assert sniff_dialect(b"a;b\n1,5;2\n", "csv", delimiter=",", decimal=".") == Dialect(",", ".", "utf8")


def _json(argv, capsys):
    status = main(argv + ["--format", "json"])
    out, err = capsys.readouterr()
    assert status == 0, err
    d = json.loads(out)
    d.pop("input", None), d.pop("source", None)
    return d


def test_a_european_spreadsheet_gives_the_report_of_the_plain_file(tmp_path, capsys):
    plain, eu, latin = tmp_path / "plain.csv", tmp_path / "eu.csv", tmp_path / "latin.csv"
    plain.write_text(PLAIN)
    eu.write_bytes(b"\xef\xbb\xbf" + european(PLAIN).encode())
    latin.write_bytes(european(PLAIN).replace("diagnosis", "diagnóstico").encode("cp1252"))
    common = ["--score", "p_malignant", "--bootstrap", "200"]
    reference = _json(["report", str(plain), "--truth", "diagnosis", *common], capsys)
    assert _json(["report", str(eu), "--truth", "diagnosis", *common], capsys) == reference
    assert _json(["report", str(eu), "--truth", "diagnosis", "--delimiter", ";", "--decimal", ",", *common],
                 capsys) == reference
    assert _json(["report", str(latin), "--truth", "diagnóstico", *common], capsys) == reference
    parts = tmp_path / "parts"
    parts.mkdir()
    (parts / "a.csv").write_bytes(eu.read_bytes())
    assert _json(["report", str(parts), "--truth", "diagnosis", *common], capsys) == reference  # in batches
    assert read_table(str(eu)).columns["p_malignant"].to_pylist()[:2] == [0.12, 0.93]


def test_a_bad_delimiter_is_one_line(tmp_path, capsys):
    path = tmp_path / "plain.csv"
    path.write_text(PLAIN)
    status = main(["report", str(path), "--truth", "diagnosis", "--score", "p_malignant", "--delimiter", ";;"])
    out, err = capsys.readouterr()
    assert status == 2 and out == "" and err.count("\n") == 1 and "--delimiter" in err
