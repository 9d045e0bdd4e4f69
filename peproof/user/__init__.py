"""The user's own statements: a parser of SymPy's syntax that executes no code
(:mod:`peproof.user.parse`), the encoding's vocabulary (:mod:`peproof.user.vocab`), statements
built from command-line text (:mod:`peproof.user.statement`), claim files loaded as plugins
(:mod:`peproof.user.plugin`) and their run through the registry's pipeline
(:mod:`peproof.user.run`)."""
