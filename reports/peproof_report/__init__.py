"""The peproof report: a LaTeX/PDF document generated from the claims registry and the run.

Entry point: :func:`peproof_report.build.build` (``peproof report`` on the command line).  The
package lives in the checkout's ``reports/`` folder, beside its templates; the core package
``peproof`` never imports it.
"""

from .build import Outcome, build
from .claimsrun import collect_claims
from .run import default_build_dir

__all__ = ["Outcome", "build", "collect_claims", "default_build_dir"]
