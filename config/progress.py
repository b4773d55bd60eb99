"""A one-line progress display for long commands, only on a terminal."""


class ProgressLine:
    """`update(done, total, label)` rewrites one line on a TTY (nothing when the
    output is a pipe or a file, so logs stay clean); `finish()` ends the line."""

    def __init__(self, stream, *, enabled: bool | None = None):
        self.stream = stream
        isatty = getattr(stream, "isatty", None)
        self.enabled = enabled if enabled is not None else bool(isatty and isatty())
        self._shown = False

    def update(self, done: int, total: int, label: str = "") -> None:
        if not self.enabled:
            return
        percent = f"{100 * done // total:3d}%" if total else "    "
        text = f"\r{percent} {done}/{total} {label}"[:200]
        self.stream.write(f"{text}\033[K", ending="")
        self.stream.flush()
        self._shown = True

    def finish(self) -> None:
        if self._shown:
            self.stream.write("")
            self._shown = False
