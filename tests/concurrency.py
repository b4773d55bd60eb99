"""Run the same callable in several real threads at once (each with its own DB
connection), for the rules that must hold under concurrency."""

import threading
from concurrent.futures import ThreadPoolExecutor

from django.db import connection


def run_concurrently(func, count: int) -> list:
    """Call `func()` from `count` threads released together; results or exceptions."""
    barrier = threading.Barrier(count)

    def worker():
        try:
            barrier.wait(timeout=60)
            return func()
        except Exception as error:  # noqa: BLE001 - the caller inspects it
            return error
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=count) as pool:
        futures = [pool.submit(worker) for _ in range(count)]
        return [future.result() for future in futures]


def in_thread(func) -> tuple[threading.Thread, list]:
    """Start `func()` in a real thread with its own DB connection: (the thread,
    a list that receives its result or exception once it ends)."""
    out: list = []

    def run():
        try:
            out.append(func())
        except Exception as error:  # noqa: BLE001 - the test inspects it
            out.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, out
