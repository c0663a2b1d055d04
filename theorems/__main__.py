import sys

from .cli import main

# Guarded: importing every suite module (engine.parallel's workers do) must not run the CLI.
if __name__ == "__main__":
    sys.exit(main())
