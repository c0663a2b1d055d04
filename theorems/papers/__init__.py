"""One subpackage per paper, one module per section or appendix. Every module found under
this package is imported by ``theorems.engine.registry.claims()``; ``CLAIMS.md`` beside this
file is the catalog of claim ids."""
