"""The verification engine: catalog, registry, checks, verdicts, contexts, profiles, the
runner, the gate manifest and the environment record. It knows no paper: claims reach it
through ``registry.register``, called by the modules under ``theorems.papers``."""
