"""Tests wait on readiness with generous limits, never a short fixed time (issue
25 item 12: on a busy machine the ReDoc page and a gunicorn's first /healthz took
longer than the 10 s they were given, and the suite went red).

The scan reads every test module's syntax tree and finds:
- Playwright's `wait_for_timeout(...)`: a fixed sleep in a browser;
- a literal `timeout=` (or a deadline `time.monotonic() + N`, or the seconds of
  a `wait_for`) below the floor; Playwright's are milliseconds: its methods
  (listed below) and any value of 1,000 or more are read as milliseconds, other
  values as seconds;
- a `time.sleep(N)` outside a loop (inside a loop it is a poll's interval).
A fixed short time that is not a readiness wait goes in ALLOWED, with its reason.
"""

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent.parent
FLOOR_SECONDS = 60

# Playwright calls whose `timeout=` is in milliseconds.
PLAYWRIGHT_MS = {
    "check",
    "click",
    "dblclick",
    "fill",
    "goto",
    "hover",
    "press",
    "reload",
    "screenshot",
    "select_option",
    "set_checked",
    "set_default_navigation_timeout",
    "set_default_timeout",
    "set_input_files",
    "set_options",
    "type",
    "uncheck",
    "wait_for",
    "wait_for_event",
    "wait_for_function",
    "wait_for_load_state",
    "wait_for_selector",
    "wait_for_url",
}
# Helpers whose second argument (or `seconds=`) is a readiness limit in seconds.
SECONDS_HELPERS = {"wait_for", "wait_until_serving", "wait_until_running"}

# (file relative to tests/, the source line's text): why a short time is right.
ALLOWED = {
    (
        "scale_out/test_ratelimit.py",
        "time.sleep(0.02)  # widens the window: not a clock rule",
    ): "widens a race window on purpose (threads making one client); not a wait",
}


def _name(func: ast.expr) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return ""


def _number(node: ast.expr | None) -> float | None:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    return None


def _seconds(value: float, call: str) -> float:
    return value / 1000 if call in PLAYWRIGHT_MS or value >= 1000 else value


def _loops(tree: ast.AST) -> set[int]:
    """ids of the nodes inside a `for` or `while` body."""
    inside = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.For | ast.While | ast.AsyncFor):
            for child in node.body:
                inside.update(id(each) for each in ast.walk(child))
    return inside


def short_waits(source: str) -> list[tuple[int, str]]:
    """(line, what) of every fixed short wait in a module's source."""
    tree = ast.parse(source)
    in_loop = _loops(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left = node.left
            if (
                isinstance(left, ast.Call)
                and _name(left.func) == "monotonic"
                and (value := _number(node.right)) is not None
                and value < FLOOR_SECONDS
            ):
                found.append((node.lineno, f"a deadline {value} s away"))
        if not isinstance(node, ast.Call):
            continue
        call = _name(node.func)
        if call == "wait_for_timeout":
            found.append((node.lineno, "Playwright's wait_for_timeout (a fixed sleep)"))
            continue
        if call == "sleep" and id(node) not in in_loop:
            found.append((node.lineno, "time.sleep outside a polling loop"))
            continue
        # (literal, whether it may be milliseconds)
        limits = [(k.value, True) for k in node.keywords if k.arg == "timeout"]
        if call in ("set_default_timeout", "set_default_navigation_timeout"):
            limits += [(arg, True) for arg in node.args[:1]]
        if call in SECONDS_HELPERS:
            limits += [(arg, False) for arg in node.args[1:2]]
            limits += [(k.value, False) for k in node.keywords if k.arg == "seconds"]
        for limit, maybe_ms in limits:
            value = _number(limit)
            if value is None:
                continue
            seconds = _seconds(value, call) if maybe_ms else value
            if seconds < FLOOR_SECONDS:
                unit = "s" if seconds == value else "ms"
                found.append((node.lineno, f"{call}(... {value} {unit})"))
    return found


def test_no_test_waits_a_short_fixed_time():
    offending = []
    for path in sorted(TESTS.rglob("*.py")):
        source = path.read_text()
        lines = source.splitlines()
        relative = path.relative_to(TESTS).as_posix()
        for line, what in short_waits(source):
            text = lines[line - 1].strip()
            if not any(
                relative == file and text.startswith(start) for file, start in ALLOWED
            ):
                offending.append(f"tests/{relative}:{line}: {what}: {text}")
    assert offending == [], "\n".join(offending)


@pytest.mark.parametrize(
    "source",
    [
        "page.wait_for_timeout(500)",
        "tab.set_default_timeout(10_000)",
        "page.get_by_text('x').wait_for(timeout=5_000)",
        "requests.get(url, timeout=10)",
        "proc.wait(timeout=20)",
        "deadline = time.monotonic() + 10",
        "wait_for(lambda: ready(), 10)",
        "time.sleep(2)",
    ],
)
def test_the_scan_finds_each_kind_of_short_wait(source):
    assert len(short_waits(source)) == 1


@pytest.mark.parametrize(
    "source",
    [
        "tab.set_default_timeout(STEP_MS)",
        "page.screenshot(path=p, timeout=120_000)",
        "requests.get(url, timeout=60)",
        "proc.communicate(timeout=600)",
        "wait_for(lambda: ready())",
        "while not ready():\n    time.sleep(0.05)",
        "barrier = threading.Barrier(2, timeout=60)",
    ],
)
def test_the_scan_passes_generous_limits_and_polls(source):
    assert short_waits(source) == []
