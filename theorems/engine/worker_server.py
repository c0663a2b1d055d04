"""The fork server's preload (``parallel.start_worker_server``). Imported there, with the main
process's id and environment in its own, it prepares the process that workers are forked
from (``parallel.prepare_server``); imported anywhere else, as every suite module is, it does
nothing. It is a module of its own because the package's Python face imports ``parallel``:
run there, the preparation would import the suite before the package had finished loading.
"""

import json
import multiprocessing
import os

from .parallel import SERVER_VARIABLE, prepare_server

# Only in the server itself (started by `python -c`, it has no parent process in
# multiprocessing's sense); a worker, which inherited the variable, just drops it.
if SERVER_VARIABLE in os.environ and multiprocessing.parent_process() is None:
    prepare_server(json.loads(os.environ.pop(SERVER_VARIABLE)))
os.environ.pop(SERVER_VARIABLE, None)
