"""The ``assay`` command: parse -> call the library -> render -> exit code.

Exit status 0 on success and 2 on bad usage or bad input, with one line on
standard error that names what is wrong (column, row, value). Nothing here
computes a number.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Sequence


def _terminated_while_loading(signum: int, frame: object) -> None:
    """SIGTERM while the command line loads: nothing has been written yet and nothing needs cleaning, so the
    process ends at once, with the same line and status as a SIGTERM during the run. (Raising SystemExit here
    would land inside whichever import is running, where a library may swallow it, or end the process with no
    word: a window in which a signal went unexplained.)"""
    os.write(2, b"assay: terminated\n")
    os._exit(143)


def _interrupted_while_loading(signum: int, frame: object) -> None:
    """Ctrl-C while the command line loads: likewise, one line and status 130."""
    os.write(2, b"assay: interrupted\n")
    os._exit(130)


try:  # installed before anything slow is imported; put back at the end of this module (main() installs its
    # own handlers for the run)
    _sigterm_before_loading = signal.signal(signal.SIGTERM, _terminated_while_loading)
    _sigint_before_loading = signal.signal(signal.SIGINT, _interrupted_while_loading) \
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler else None
except ValueError:  # imported outside the main thread
    _sigterm_before_loading = _sigint_before_loading = None

try:  # a Ctrl-C while the command line loads ends it with one line, as any other Ctrl-C
    import click

    from assay import __version__
    from assay.cli import calculators, compare, demo, ending, friedman, plan, report, validate
    from assay.cli.common import CONTEXT, UserError, interrupted, on_interrupt, reset_interrupt
except KeyboardInterrupt:
    sys.stderr.write("assay: interrupted\n")
    raise SystemExit(130) from None

__all__ = ["main", "cli"]

INTERRUPTED = 130
"""Exit status after Ctrl-C (SIGINT), as shells report it: 128 + 2."""

TERMINATED = 143
"""Exit status after SIGTERM: 128 + 15."""


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


for module in (report, validate, compare, calculators, demo, plan, friedman):
    module.register(cli)

if _sigterm_before_loading is not None:
    signal.signal(signal.SIGTERM, _sigterm_before_loading)
if _sigint_before_loading is not None:
    signal.signal(signal.SIGINT, _sigint_before_loading)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns (and exits with) the exit status.

    0 on success; 2 with one line on standard error for a mistake of the user's; 130
    after Ctrl-C and 143 after SIGTERM, with one line and no output file (the writer
    removes its temporary file as the interruption unwinds); 1 with one line for a
    bug, which should not happen and is worth reporting. Called without arguments (as
    the ``assay`` command), the process ends promptly after the run, and within
    :data:`assay.cli.ending.GRACE` seconds of a signal whatever its threads are doing
    (:mod:`assay.cli.ending`).
    """
    previous = _on_signals()
    stop_watching = ending.watch({signal.SIGINT: (INTERRUPTED, "interrupted"),
                                  signal.SIGTERM: (TERMINATED, "terminated")}) \
        if argv is None and previous else (lambda: None)
    try:
        from assay.io.atomic import begin_run

        args = list(sys.argv[1:] if argv is None else argv)
        begin_run()
        reset_interrupt()
        status = _run(args)
        if reset_interrupt() and status == 0:  # a Ctrl-C that the library swallowed, after the output
            _say("assay: interrupted")
            status = INTERRUPTED
    except KeyboardInterrupt:  # between two steps of this function
        _say("assay: interrupted")
        status = INTERRUPTED
    except _Terminated:  # likewise for SIGTERM (as while the output module loads, before the run)
        _say("assay: terminated")
        status = TERMINATED
    finally:
        from assay.io.atomic import end_run

        end_run()
        if argv is None:  # the work is done: a late Ctrl-C or SIGTERM would only garble the exit
            for signum in previous:
                signal.signal(signum, signal.SIG_IGN)
        else:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
        stop_watching()
    if argv is None:
        ending.leave(status)
    return status


class _Terminated(BaseException):
    """SIGTERM, raised where the program is, so that every cleanup on the way out runs."""


_terminated = False
"""Whether a SIGTERM came during the run (as :func:`assay.cli.common.interrupted` for Ctrl-C)."""


def _on_signals() -> dict[int, object]:
    """Turn SIGTERM and SIGINT into exceptions (main thread only; elsewhere the defaults stay).
    Returns the handlers to put back."""
    global _terminated
    _terminated = False

    def terminate(signum: int, frame: object) -> None:
        global _terminated
        _terminated = True
        raise _Terminated()

    sys.unraisablehook = _quiet_unraisable
    previous = {}
    try:
        previous[signal.SIGTERM] = signal.signal(signal.SIGTERM, terminate)
        previous[signal.SIGINT] = signal.signal(signal.SIGINT, on_interrupt)
    except ValueError:  # not the main thread: signals cannot be handled here
        pass
    return previous


def _run(args: list[str]) -> int:
    try:
        with cli.make_context("assay", args) as ctx:  # as cli.main does, less its newline before a Ctrl-C's
            cli.invoke(ctx)  # Abort: the one line is all that is said
        return 0
    except UserError as e:
        click.echo(f"assay: error: {e}", err=True)
        return 2
    except click.exceptions.NoArgsIsHelpError as e:
        click.echo(e.ctx.get_help() if e.ctx else str(e))
        return 0
    except click.UsageError as e:
        hint = f" (see: {e.ctx.command_path} --help)" if e.ctx else ""
        click.echo(f"assay: error: {e.format_message()}{hint}", err=True)
        return 2
    except click.ClickException as e:
        click.echo(f"assay: error: {e.format_message()}", err=True)
        return 2
    except (click.exceptions.Abort, KeyboardInterrupt):
        _say("assay: interrupted")
        return INTERRUPTED
    except _Terminated:
        _say("assay: terminated")
        return TERMINATED
    except click.exceptions.Exit as e:
        return e.exit_code
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except MemoryError:
        _say("assay: error: out of memory")
        return 2
    except Exception as e:  # a bug: one line, not a traceback (ASSAY_DEBUG=1 shows it)
        within = _signal_within(e)
        if within is None and (interrupted() or _terminated):
            # a library that turned the signal into its own error (numba, interrupted while it compiles,
            # raises "no compiled object yet"): the error is the signal's doing, not a bug
            within = KeyboardInterrupt() if interrupted() else _Terminated()
        if within is not None:  # a signal that Python wrapped on its way out (as __set_name__ does)
            _say("assay: interrupted" if isinstance(within, KeyboardInterrupt) else "assay: terminated")
            return INTERRUPTED if isinstance(within, KeyboardInterrupt) else TERMINATED
        if os.environ.get("ASSAY_DEBUG"):
            raise
        first = str(e).strip().splitlines()[0] if str(e).strip() else ""
        _say(f"assay: internal error: {type(e).__name__}{': ' + first if first else ''} "
             "(a bug in assay; ASSAY_DEBUG=1 shows where)")
        return 1


def _signal_within(error: BaseException) -> BaseException | None:
    """The Ctrl-C or SIGTERM that caused ``error``, if any: a signal that lands while a class is made is
    re-raised by Python as a RuntimeError ("Error calling __set_name__ ...") with the signal as its cause."""
    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, (KeyboardInterrupt, _Terminated)):
            return cause
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return None


def _quiet_unraisable(info: object) -> None:
    """A Ctrl-C or SIGTERM that landed in a finaliser is noted by its flag, not printed as a traceback."""
    if not isinstance(getattr(info, "exc_value", None), (KeyboardInterrupt, _Terminated)):
        sys.__unraisablehook__(info)  # type: ignore[arg-type]


def _say(line: str) -> None:
    ending.tell(line)
