"""The errors of the run directory: one sentence a person can act on.

Here, below store.py, records.py and fence.py, so that each of them can raise them
without importing the others.
"""

from __future__ import annotations


class RunDirError(Exception):
    """The run directory cannot be used; the message says why and what to do."""


class RunFileError(RunDirError, ValueError):
    """A file of a run directory is missing, damaged, or from another Labwright.

    The message is one sentence a person can act on. A ValueError too: callers that
    took a run.json through json.loads caught ValueError, and still do."""


class RunLinkError(RunFileError, OSError):
    """Something in a run folder leads out of it: a link (a symlink, on Windows also a
    junction), a FIFO, socket or device where a file or folder belongs, or a name that
    climbs out. Labwright refuses the folder rather than follow it (rundir/fence.py).

    An OSError too, so that every reader that already copes with a file it cannot
    open copes with this one the same way: it shows nothing of it."""
