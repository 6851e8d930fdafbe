"""Scheduling priority for the benches that run `sailor` processes on a shared machine.

On the shared development machine other engineers' builds keep 5 to 10 threads runnable on 2
cores: without priority the figures measure their load, not the runtime. As root a bench (and the
profiler and runs it starts, which inherit it) takes the highest priority, so that the scheduler
gives it the cores (CFS weight 88761 against 1024 per build thread).
"""

import os
import sys


def take_priority(bench, wanted=True):
    """nice -20 when wanted and allowed (root); says which on stderr and returns it."""
    priority = "default"
    if wanted:
        try:
            os.nice(-20)
            priority = "nice -20"
        except PermissionError:
            pass
    print(f"{bench}: priority {priority}", file=sys.stderr)
    return priority
