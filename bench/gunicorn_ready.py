"""gunicorn's settings for the bench: config/gunicorn.py's (as deployed), and each
worker touching `<BENCH_READY_DIR>/<pid>` once it has loaded the application, so
that a measurement starts when every worker can answer (a worker that is still
importing Django under load answers nothing for seconds)."""

import os
from pathlib import Path

exec(
    Path(__file__).resolve().parent.parent.joinpath("config", "gunicorn.py").read_text()
)


def post_worker_init(worker):
    folder = os.environ.get("BENCH_READY_DIR")
    if folder:
        Path(folder, str(os.getpid())).touch()
