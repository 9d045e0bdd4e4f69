"""Subcommands of ``peproof`` beyond ``prove``: one module each, exporting ``add_parser(sub)``.

A subcommand's function takes the parsed ``args`` and returns the exit code (0 ok, 1 a check
failed); bad input raises :class:`peproof.cli.UsageError` (one line on stderr, exit code 2).
"""
