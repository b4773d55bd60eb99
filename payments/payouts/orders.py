"""Which order a wallet movement belongs to, for settlement reports.

A ledger transaction names its resource (`installment`, `payment_plan`,
`refund`), but orders and plans live in `installments`, above `payments`
(DESIGN section 1): `installments` registers the lookup in its
AppConfig.ready(). Without one, reports carry no order columns.
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class OrderOf:
    order_reference: str = ""
    payment_plan_id: str = ""
    installment_id: str = ""


NO_ORDER = OrderOf()
# (resource_type, resource_id) pairs -> the order of each it knows.
OrderLookup = Callable[[Iterable[tuple[str, str]]], dict[tuple[str, str], OrderOf]]

_lookups: list[OrderLookup] = []


def register_order_lookup(lookup: OrderLookup) -> None:
    if lookup not in _lookups:
        _lookups.append(lookup)


def orders_of(resources: Iterable[tuple[str, str]]) -> dict[tuple[str, str], OrderOf]:
    resources = [pair for pair in resources if pair[0] and pair[1]]
    found: dict[tuple[str, str], OrderOf] = {}
    for lookup in _lookups:
        found.update(lookup(resources))
    return found
