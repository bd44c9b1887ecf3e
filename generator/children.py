"""Child processes that die with the build that started them (the site engine, the aid workers)."""
from __future__ import annotations

import ctypes
import signal


def die_with_parent() -> None:
    """In a child process: be killed when the process that started it dies (Linux prctl)."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass  # not Linux: a killed build may leave its children running
