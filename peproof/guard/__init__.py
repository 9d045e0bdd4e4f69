"""Guards shared by every command: bad input, sizes, signals, user code, output files.

``paths``      input files that are regular files (a FIFO or a device is named, never opened);
               ``--out`` validated up front (writable, room for the output); atomic writes with
               the user's umask, bounded temporary names, through symbolic links; a set of
               files replacing the previous set whole; a closed stdout ends the command quietly
``locks``      one run per output or checkpoint folder (``flock``: wait, or refuse)
``keys``       the user's secret key (0600, outside any output) for signing checkpoints
``limits``     work and memory estimated before a command starts, refused beyond a default
               limit with the estimate and the flag that lifts it; archive members sized from
               their headers and read with a cap
``positions``  positions parsed exactly (Python ints, ``Fraction`` steps) and refused where a
               format cannot hold them
``signals``    SIGINT / SIGTERM become :class:`Interrupted`; process pools are shut down (their
               workers terminated) on every signal; descendants are reaped
``child``      ``module:function`` run in a child process with a time and a memory limit

Every refusal is a :class:`UsageError`: one line on stderr, exit code 2.  A fault of the machine
met during the work (a full or read-only disk, a killed worker, a scheduler gone or silent) is an
:class:`EnvironmentFault`: one line naming the fault and the path or address, exit code 4, and the
finished work kept for a rerun.  The core (encoding, claims, engines, oracle, numerics) may use
these helpers; they never import the CLI.
"""

from __future__ import annotations

import errno

#: error numbers of an OSError that are the machine's fault, not the input's (exit code 4)
ENVIRONMENT_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO,
                                errno.EFBIG, errno.ENOMEM, errno.ESTALE})


class UsageError(Exception):
    """Bad input: reported as one line on stderr, exit code 2."""


class EnvironmentFault(Exception):  # noqa: N818 (a fault of the machine, not of peproof)
    """A fault of the environment during the work: one line on stderr, exit code 4."""


def describe_os_error(exc: OSError, doing: str = "") -> str:
    """``No space left on device writing /x/y`` from an OSError (its strerror and filename)."""
    what = exc.strerror or type(exc).__name__
    where = f" {doing}" if doing else ""
    name = exc.filename if exc.filename is not None else ""
    return f"{what}{where}{' ' + str(name) if name else ''}"
