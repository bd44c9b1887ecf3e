"""Child processes that die with the build that started them (the site engine, the aid workers)."""
from __future__ import annotations

import ctypes
import os
import signal


def die_with_parent(parent: int | None = None) -> None:
    """In a child process: be killed when the process that started it dies (Linux prctl). Given
    the parent's pid (taken before the fork), a child whose parent died before this call ends now."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        return  # not Linux: a killed build may leave its children running
    if parent is not None and os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)
