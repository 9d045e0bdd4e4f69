"""Claim families, one module each; every module exports ``CLAIMS``."""
