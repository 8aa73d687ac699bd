"""How the command's process ends: promptly and with its status, whatever its threads are doing.

Two promises, both about the process and not the library (a notebook that calls
:func:`assay.cli.main` with arguments gets neither):

* **After the run**, once standard output and error are flushed and the exit
  handlers have run as the interpreter runs them (the executors' first: joblib's
  worker processes are stopped there), within :data:`GRACE` seconds, the process
  ends with ``os._exit`` (:func:`leave`). The interpreter's own finalisation is
  skipped: native thread pools (pyarrow's, whose Windows-1252 transcoding calls back
  into Python) may run into a dying interpreter there. Under load about one run in a
  few hundred hung there, or aborted with "terminate called without an active
  exception".
* **After SIGINT or SIGTERM**, the process ends within :data:`GRACE` seconds even
  when the run cannot unwind (its main thread held in native code, where Python's
  signal handler never runs). A thread woken by the signal itself
  (``signal.set_wakeup_fd``) waits that long, then removes the output files being
  written (:func:`assay.io.atomic.abandon`), says the one line (when the run has
  not said it) and ends the process with 130 or 143 (:func:`watch`).
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping

__all__ = ["GRACE", "leave", "tell", "watch"]

GRACE = 10.0
"""Seconds a run has, after a signal or after its end, to finish on its own before its process is ended."""

_told = False


def tell(line: str) -> None:
    """Say the run's last line on standard error (once told, the watching thread says nothing more)."""
    global _told
    _told = True
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def watch(endings: Mapping[int, tuple[int, str]]) -> Callable[[], None]:
    """From now on, a signal of ``endings`` (signal number -> (exit status, word)) ends the process within
    :data:`GRACE` seconds. Main thread only, with Python handlers installed for those signals (only they are
    written to the wake-up descriptor). Returns the function that stops watching."""
    read, write = os.pipe()
    os.set_blocking(write, False)
    try:
        previous = signal.set_wakeup_fd(write, warn_on_full_buffer=False)
    except ValueError:  # not the main thread
        os.close(read)
        os.close(write)
        return lambda: None
    threading.Thread(target=_wait, args=(read, dict(endings)), name="assay-signal-watch", daemon=True).start()

    def stop() -> None:
        signal.set_wakeup_fd(previous)
        os.close(write)  # the watching thread reads the end of the pipe and returns

    return stop


def _wait(read: int, endings: dict[int, tuple[int, str]]) -> None:
    while True:
        data = os.read(read, 64)
        if not data:  # no longer watched
            os.close(read)
            return
        first = next((signum for signum in data if signum in endings), None)
        if first is not None:
            break  # the pipe stays open: a second signal is written to it, not to a closed pipe
    time.sleep(GRACE)
    status, word = endings[first]
    _end_now(status, f"assay: {word}")


def _end_now(status: int, line: str | None) -> None:
    """End the process at once: the output files being written removed, ``line`` said unless the run said
    its own."""
    from assay.io.atomic import abandon

    abandon()
    if line is not None and not _told:
        os.write(2, (line + "\n").encode())
    os._exit(status)


def leave(status: int) -> None:
    """End the process with ``status`` after a run: streams flushed, exit handlers run (at most
    :data:`GRACE` seconds), then ``os._exit``, skipping the interpreter's finalisation."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    threading.Thread(target=_deadline, args=(status,), name="assay-exit-deadline", daemon=True).start()
    for handler in [*reversed(getattr(threading, "_threading_atexits", [])), atexit._run_exitfuncs]:
        try:  # as the interpreter's exit calls them: the executors' (joblib's processes stopped), then atexit's
            handler()
        except BaseException:  # noqa: BLE001 - nothing may stop the exit
            pass
    os._exit(status)


def _deadline(status: int) -> None:
    time.sleep(GRACE)
    _end_now(status, None)
