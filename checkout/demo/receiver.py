"""The demo's webhook endpoint: a receiver on 127.0.0.1 that lives only while
the month is seeded, so the delivery log fills with real signed deliveries and
nothing goes out to the network.

It answers 200, except every fifth request, which gets a 503, so the log also
shows failed attempts and the retries that delivered them. Once the seed ends
the receiver is gone: later deliveries to its address fail (connection refused)
and are retried, until the merchant saves their own URL in Settings.
"""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FAIL_EVERY = 5


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self):  # noqa: N802 (the http.server name)
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        with self.server.lock:
            self.server.count += 1
            failing = self.server.count % FAIL_EVERY == 0
        status = 503 if failing else 200
        body = b'{"busy": true}' if failing else b'{"received": true}'
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):  # quiet: the seed has its own output
        return


class LocalReceiver:
    """`with LocalReceiver() as receiver:` serves on `receiver.url` meanwhile."""

    def __enter__(self) -> "LocalReceiver":
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.server.count = 0
        self.server.lock = threading.Lock()
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}/webhooks/installments"

    @property
    def received(self) -> int:
        return self.server.count

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()
