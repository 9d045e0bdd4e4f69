"""Guards shared by every command: bad input, sizes, signals, user code, output files.

``paths``      input files that are regular files (a FIFO or a device is named, never opened);
               ``--out`` validated up front; atomic writes with the user's umask; one lock per
               output folder; a closed stdout ends the command quietly
``limits``     work and memory estimated before a command starts, refused beyond a default
               limit with the estimate and the flag that lifts it; archive members sized from
               their headers and read with a cap
``positions``  positions parsed exactly (Python ints, ``Fraction`` steps) and refused where a
               format cannot hold them
``signals``    SIGINT / SIGTERM become :class:`Interrupted`; process pools are shut down (their
               workers terminated) on every signal; descendants are reaped
``child``      ``module:function`` run in a child process with a time and a memory limit

Every refusal is a :class:`UsageError`: one line on stderr, exit code 2.  The core (encoding,
claims, engines, oracle, numerics) may use these helpers; they never import the CLI.
"""

from __future__ import annotations


class UsageError(Exception):
    """Bad input: reported as one line on stderr, exit code 2."""
