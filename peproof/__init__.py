"""peproof: proofs, certified numerics and a reference oracle for sinusoidal encodings."""
import os

os.environ.setdefault("SYMPY_CACHE_SIZE", "100000")  # concrete-d statements repeat subexpressions

__version__ = "0.1.0"
