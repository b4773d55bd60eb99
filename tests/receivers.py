"""A real HTTP receiver on 127.0.0.1 for merchant webhooks (a server thread, not
a mock); the `receiver` fixture of tests/conftest.py starts one per test."""

import threading
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict
    body: bytes


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real receivers do

    def do_POST(self):
        receiver = self.server.receiver
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with receiver.lock:
            receiver.received.append(
                Received(
                    self.path, {k.lower(): v for k, v in self.headers.items()}, body
                )
            )
            status = receiver.script.popleft() if receiver.script else receiver.status
        if receiver.on_request is not None:
            receiver.on_request()
        if status is None:
            # Hold the answer until the test ends: the sender's timeout fires.
            receiver.released.wait(30)
            status = 200
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()
        receiver.arrived.set()

    def log_message(self, *args):
        pass


class Receiver:
    """Answers `status` (200 unless changed); `answer(500, 200)` scripts the next
    replies; `None` means never answer."""

    def __init__(self, port: int = 0):
        self.received: list[Received] = []
        self.script: deque = deque()
        self.status: int | None = 200
        self.on_request = None  # called in the handler thread before answering
        self.lock = threading.Lock()
        self.released = threading.Event()
        self.arrived = threading.Event()
        self.server = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
        self.server.daemon_threads = True
        self.server.receiver = self
        self.thread = threading.Thread(
            target=self.server.serve_forever, args=(0.02,), daemon=True
        )
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hooks"

    def answer(self, *statuses) -> None:
        self.script.extend(statuses)

    def event_ids(self) -> list[str]:
        return [item.headers["x-service-event-id"] for item in self.received]

    def close(self) -> None:
        self.released.set()
        self.server.shutdown()
        self.server.server_close()
