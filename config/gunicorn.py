"""gunicorn's settings for the web processes (docs/operations.md):

    gunicorn -c config/gunicorn.py config.wsgi --workers 4 --bind 127.0.0.1:8000

- Metrics of several processes: with `PROMETHEUS_MULTIPROC_DIR` set, every worker
  writes its request counts to files in that folder and /metrics adds up all of
  them (config/observability/metrics.py). The folder is emptied when gunicorn
  starts; a worker that exits keeps its counts in the sums, as counters must.
- `LOG_FORMAT=json`: gunicorn's own lines (start, workers, errors) are JSON like
  the service's. Its access log stays off then: it would print raw paths, and the
  hosted checkout's hold session tokens; requests are counted in /metrics.
- Workers are `gthread`, `threads` requests at a time each: a request waiting on
  the database or on a slow client (a streamed CSV export to a phone) holds one
  thread, not the whole process. `make bench BENCH_ARGS="--only workers"` measures
  it against `sync` (bench/RESULTS.md, docs/operations.md). `--threads` on the
  command line overrides it.
- The control socket (`gunicornc`) is the master's own:
  `<gunicorn's socket folder>/gunicorn-<master pid>.ctl`, logged at start. gunicorn's
  default is one path per user (`$XDG_RUNTIME_DIR/gunicorn.ctl` or
  `~/.gunicorn/gunicorn.ctl`), so a second gunicorn of the user took over the
  first's socket and whichever stopped first removed it. `--control-socket PATH`
  still chooses a path; `--no-control-socket` turns it off.
"""

import os
from pathlib import Path

worker_class = "gthread"
threads = 4


def on_starting(server):
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        # Counts of an earlier run would be added to this one's.
        for stale in Path(folder).glob("*.db"):
            stale.unlink()
    _own_control_socket(server)


def _own_control_socket(server):
    """The master's own control socket, unless one was chosen: in gunicorn's
    default folder (the user's, 0700), named by the master's pid."""
    setting = server.cfg.settings["control_socket"]
    if server.cfg.control_socket_disable or setting.value != setting.default:
        return
    path = Path(setting.default).with_name(f"gunicorn-{os.getpid()}.ctl")
    # Made here: gunicorn's own check-then-create fails ("File exists") when two
    # gunicorns start at once and both find it missing.
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    server.cfg.set("control_socket", str(path))
    server.log.info("Control socket: %s", path)


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
