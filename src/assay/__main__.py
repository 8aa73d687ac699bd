"""``python -m assay`` runs the command line."""

try:
    from assay.cli import main
except KeyboardInterrupt:  # pragma: no cover - a Ctrl-C in the first milliseconds
    import sys

    sys.stderr.write("assay: interrupted\n")
    raise SystemExit(130) from None

main()
