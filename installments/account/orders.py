"""The order a customer is paying for while they add a payment method from the
hosted checkout, so the bank account pages keep its summary in view.

The checkout is above this app (docs/architecture.md): it registers how to find
its order from the `next` path these pages send the customer back to
(`register_order_finder`, in `checkout/apps.py`). An order is whatever the
template `checkout/_order.html` reads: `merchant.business_name`, `title`,
`amount`, `currency`.
"""

from collections.abc import Callable

OrderFinder = Callable[[str], object | None]
_finders: list[OrderFinder] = []


def register_order_finder(finder: OrderFinder) -> None:
    if finder not in _finders:
        _finders.append(finder)


def order_for(next_path: str | None) -> object | None:
    """The order behind `next_path`, or None (the customer came from their
    account, or from nowhere a finder knows)."""
    if not next_path:
        return None
    for finder in _finders:
        order = finder(next_path)
        if order is not None:
            return order
    return None
