"""Child processes that die with the build that started them (the site engine, the snapshot maker,
the aid workers), and that never swallow the build's Ctrl-C.

Python runs its fork hooks (logging's, threading's…) in the parent just after a fork, and ignores
an exception raised in them: a Ctrl-C landing there was lost, and the build went on to the end.
So SIGINT is held while a child is forked (`held_interrupts`) and delivered just after."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any


def die_with_parent(parent: int | None = None) -> None:
    """In a child process: be killed when the process that started it dies (Linux prctl). Given
    the parent's pid (taken before the fork), a child whose parent died before this call ends now."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        return  # not Linux: a killed build may leave its children running
    if parent is not None and os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)


@contextmanager
def held_interrupts() -> Iterator[None]:
    """Hold SIGINT in this thread while forking: a Ctrl-C that arrives meanwhile is delivered after."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def let_interrupts_in() -> None:
    """In a child forked under `held_interrupts`: SIGINT is no longer held (the mask is inherited)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _child_setup(parent: int) -> None:
    let_interrupts_in()
    die_with_parent(parent)


def run_dying_with_this_process(command: list[str], **options: Any) -> subprocess.CompletedProcess[str]:
    """`subprocess.run(command, capture_output=True, text=True, **options)` for a child that dies with
    this process, forked with SIGINT held."""
    with held_interrupts():
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=partial(_child_setup, os.getpid()), **options
        )
    with process:
        try:
            stdout, stderr = process.communicate()
        except BaseException:
            process.kill()
            raise
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
