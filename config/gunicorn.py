"""gunicorn's settings for the web processes (docs/operations.md):

    gunicorn -c config/gunicorn.py config.wsgi --workers 4 --bind 127.0.0.1:8000

- Metrics of several processes: with `PROMETHEUS_MULTIPROC_DIR` set, every worker
  writes its request counts to files in that folder and /metrics adds up all of
  them (config/observability/metrics.py). The folder is emptied when gunicorn
  starts; a worker that exits keeps its counts in the sums, as counters must.
- `LOG_FORMAT=json`: gunicorn's own lines (start, workers, errors) are JSON like
  the service's. Its access log stays off then: it would print raw paths, and the
  hosted checkout's hold session tokens; requests are counted in /metrics.
"""

import os
from pathlib import Path


def on_starting(server):
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        # Counts of an earlier run would be added to this one's.
        for stale in Path(folder).glob("*.db"):
            stale.unlink()


def child_exit(server, worker):
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)


if os.environ.get("LOG_FORMAT") == "json":
    logconfig_dict = {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {
            "json": {
                "()": "pythonjsonlogger.json.JsonFormatter",
                "fmt": "%(levelname)s %(name)s %(message)s",
                "rename_fields": {"levelname": "level", "name": "logger"},
                "timestamp": True,
            }
        },
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "formatter": "json",
                "stream": "ext://sys.stderr",
            }
        },
        "root": {"level": "INFO", "handlers": []},
        "loggers": {
            "gunicorn.error": {
                "level": "INFO",
                "handlers": ["stderr"],
                "propagate": False,
                "qualname": "gunicorn.error",
            },
            "gunicorn.access": {
                "level": "INFO",
                "handlers": [],
                "propagate": False,
                "qualname": "gunicorn.access",
            },
        },
    }
