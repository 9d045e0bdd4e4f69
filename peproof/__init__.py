"""peproof: proofs, certified numerics and a reference oracle for sinusoidal positional encodings."""

__version__ = "0.1.0"
