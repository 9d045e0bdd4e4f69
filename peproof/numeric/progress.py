"""Progress of a chunked scan on stderr: chunks done, units (offsets) per second, time left.

The bar is tqdm's; it is shown only when it is asked for and stderr is a terminal, so ``--json``
runs, pipes, CI logs and tests stay quiet.  A scan resumed from a checkpoint starts the bar at
the chunks already done, and the rate counts only the work done in this run.
"""

from __future__ import annotations

import sys


def wanted(quiet: bool = False, stream=None) -> bool:
    """A bar is drawn when not ``quiet`` and ``stream`` (default stderr) is a terminal."""
    stream = sys.stderr if stream is None else stream
    try:
        return not quiet and stream.isatty()
    except (AttributeError, ValueError):
        return False


class Bar:
    """``label [####....] 12/40 chunks, 3.1M offsets/s, 00:42 left`` on ``stream``."""

    def __init__(self, label: str, chunks: int, units: int, unit: str = "offsets",
                 stream=None, done_chunks: int = 0, done_units: int = 0):
        import os

        from tqdm import tqdm

        stream = sys.stderr if stream is None else stream
        try:  # a terminal that reports no width (0 columns) gets 100
            wide = os.get_terminal_size(stream.fileno()).columns > 0
        except (OSError, AttributeError, ValueError):
            wide = False
        self.chunks, self.done = chunks, done_chunks
        self._bar = tqdm(total=units, initial=done_units, desc=label, unit=f" {unit}",
                         unit_scale=True, file=stream, dynamic_ncols=wide,
                         ncols=None if wide else 100, nrows=None if wide else 24,
                         leave=False, smoothing=0.1,
                         postfix=f"{done_chunks}/{chunks} chunks",
                         bar_format="{desc}: {percentage:3.0f}%|{bar}| {postfix} "
                                    "[{rate_fmt}, {remaining} left]")

    def _post(self) -> None:
        self._bar.set_postfix_str(f"{self.done}/{self.chunks} chunks", refresh=False)

    def advance(self, units: int) -> None:
        self.done += 1
        self._post()
        self._bar.update(units)

    def close(self) -> None:
        self._bar.close()
