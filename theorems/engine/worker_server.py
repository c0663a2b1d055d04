"""The fork server's preload (``parallel.start_worker_server``). Imported there, with the main
process's id in its environment, it prepares the process that workers are forked from
(``parallel.prepare_server``); imported anywhere else, as every suite module is, it does
nothing. It is a module of its own because the package's Python face imports ``parallel``:
run there, the preparation would import the suite before the package had finished loading.
"""

import os

from .parallel import SERVER_VARIABLE, prepare_server

if os.environ.get(SERVER_VARIABLE, "").isdigit():
    prepare_server(int(os.environ.pop(SERVER_VARIABLE)))
