"""Registries through which features above the shared core fill in their part
of a plan's figures and representation. The core never imports a feature
(docs/architecture.md), yet a plan's events and its API representation carry
what refunds and reschedules know: the features register their readers in
installments/apps.py, as payments' subpackages do in payments/gateway/hooks.py.

- the money of a plan's refunds still on its way (refunds): in every plan
  lifecycle event and the plan representation (`amount_refund_pending`);
- the representation's parts (refunds: `refunds`; reschedules: `reschedules`,
  `customer_reschedules_left`), in the order they are registered, each with
  the prefetch of what it reads (selectors.plans_with_installments).
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db.models import Prefetch

if TYPE_CHECKING:
    from .models import PaymentPlan

# Of `plan.amount_refunded`, what is still on its way to the customer (kobo).
RefundPendingReader = Callable[["PaymentPlan"], int]


@dataclass(frozen=True)
class PlanOutputPart:
    # Keys of the plan representation a feature answers for, with their values.
    fill: Callable[["PaymentPlan"], dict]
    # The plan's related rows `fill` reads, fetched with the plans.
    prefetch: Callable[[], Prefetch]


_refund_pending: list[RefundPendingReader] = []
_output_parts: list[PlanOutputPart] = []


def register_refund_pending_reader(reader: RefundPendingReader) -> None:
    """One reader: a second one would count the same money twice."""
    if _refund_pending and _refund_pending[0] is not reader:
        raise RuntimeError("A refund-pending reader is registered already.")
    _refund_pending[:] = [reader]


def amount_refund_pending(plan: "PaymentPlan") -> int:
    if not _refund_pending:
        raise RuntimeError(
            "No refund-pending reader is registered: installments' AppConfig "
            "registers it in ready()."
        )
    return _refund_pending[0](plan)


def register_plan_output_part(
    fill: Callable[["PaymentPlan"], dict], *, prefetch: Callable[[], Prefetch]
) -> None:
    part = PlanOutputPart(fill=fill, prefetch=prefetch)
    if part not in _output_parts:
        _output_parts.append(part)


def plan_output_parts(plan: "PaymentPlan") -> dict:
    """Every registered part's keys, in the order the parts were registered."""
    output = {}
    for part in _output_parts:
        output.update(part.fill(plan))
    return output


def plan_output_prefetches() -> list[Prefetch]:
    return [part.prefetch() for part in _output_parts]
