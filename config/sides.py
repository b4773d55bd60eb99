"""Which side of an account the work in hand is on (DESIGN section 21,
docs/test-mode.md): live, or test.

Every record says its side through its merchant row (`Merchant.livemode`), and
the processor for it is chosen from that (`payments.gateway.processors.
processor_of`). This is the second guard, for what reaches a live processor
without a record in hand: a request made with a test key, or a dashboard page
on its test side, enters the test side here, and a live processor's adapter
refuses every call made while it is entered (`refuse_in_test_side`). The mark
is a context variable, so it is the thread's (and the task's) own, and
`SideMiddleware` clears it at the start and end of every request.
"""

from contextvars import ContextVar

_test_side: ContextVar[bool] = ContextVar("test_side", default=False)


class TestSideRefused(RuntimeError):
    """A live processor was asked to act while the test side is entered."""


def enter_test_side() -> None:
    _test_side.set(True)


def leave_test_side() -> None:
    _test_side.set(False)


def in_test_side() -> bool:
    return _test_side.get()


def refuse_in_test_side(processor_name: str) -> None:
    """A live processor's adapter calls this before any request it sends."""
    if _test_side.get():
        raise TestSideRefused(
            f"Test data never reaches the {processor_name} processor: this work "
            "is on the test side."
        )


class SideMiddleware:
    """Every request starts and ends on the live side; authentication with a
    test key, or the dashboard's test switch, enters the test side."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        leave_test_side()
        try:
            return self.get_response(request)
        finally:
            leave_test_side()
