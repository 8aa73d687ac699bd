"""The ``assay`` command: parse -> call the library -> render -> exit code.

Exit status 0 on success and 2 on bad usage or bad input, with one line on
standard error that names what is wrong (column, row, value). Nothing here
computes a number.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

import click

from assay import __version__
from assay.cli import calculators, compare, demo, report, validate
from assay.cli.common import CONTEXT, UserError

__all__ = ["main", "cli"]


@click.group(context_settings=CONTEXT)
@click.version_option(__version__, prog_name="assay")
def cli() -> None:
    """assay: honest numbers for classifiers.

    Every figure with its confidence interval, every comparison with a test.

    \b
    Start with:
      assay demo                      the whole job on a bundled real data set
      assay report preds.csv --truth y --pred yhat
      assay validate --dataset breast-cancer --model decision-tree --model naive-bayes
      assay interval --successes 80 --n 100
    """


for module in (report, validate, compare, calculators, demo):
    module.register(cli)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns (and exits with) the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        cli.main(args=args, prog_name="assay", standalone_mode=False)
        status = 0
    except UserError as e:
        click.echo(f"assay: error: {e}", err=True)
        status = 2
    except click.exceptions.NoArgsIsHelpError as e:
        click.echo(e.ctx.get_help() if e.ctx else str(e))
        status = 0
    except click.UsageError as e:
        hint = f" (see: {e.ctx.command_path} --help)" if e.ctx else ""
        click.echo(f"assay: error: {e.format_message()}{hint}", err=True)
        status = 2
    except click.ClickException as e:
        click.echo(f"assay: error: {e.format_message()}", err=True)
        status = 2
    except click.exceptions.Abort:
        click.echo("assay: aborted", err=True)
        status = 130
    except click.exceptions.Exit as e:
        status = e.exit_code
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        status = 0
    if argv is None:
        sys.exit(status)
    return status
