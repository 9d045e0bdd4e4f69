"""Engines that decide statements: exponential rewriting (SymPy), z3, certified arb witnesses."""
