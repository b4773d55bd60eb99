"""Reads of a customer's payment methods.

A method has a side (`livemode`, docs/test-mode.md "Customers and their
methods"): every read that offers or charges methods names the side it reads,
the plan's or the checkout's; the customer's own pages read the live side."""

from datetime import datetime

from django.db.models import Count, QuerySet

from config.api.ids import row_by_public_id

from ..customers.models import Customer
from .errors import PaymentMethodNotFound
from .models import PaymentMethod


def payment_methods_listed(
    customer: Customer, *, livemode: bool = True
) -> QuerySet[PaymentMethod]:
    """A side's active methods (default first, then newest) and revoked ones as
    history; deleted methods are gone from the listing."""
    return (
        customer.payment_methods.filter(livemode=livemode)
        .exclude(status=PaymentMethod.Status.DELETED)
        .order_by("-is_default", "status", "-created_at", "-id")
    )


def payment_methods_chargeable(
    customer: Customer, *, livemode: bool = True
) -> list[PaymentMethod]:
    """What an auto-debit of a plan on that side may charge, in order: the
    side's default, then newest first."""
    return list(
        customer.payment_methods.filter(
            livemode=livemode, status=PaymentMethod.Status.ACTIVE
        ).order_by("-is_default", "-created_at", "-id")
    )


def payment_methods_chargeable_by_customer(
    customer_pks,
) -> dict[tuple[int, bool], list[PaymentMethod]]:
    """`payment_methods_chargeable` for many customers, both sides, in one
    query (their `customer` loaded too), keyed by (customer pk, livemode); a
    customer without active methods on a side is absent for it."""
    methods: dict[tuple[int, bool], list[PaymentMethod]] = {}
    for method in (
        PaymentMethod.objects.filter(
            customer_id__in=customer_pks, status=PaymentMethod.Status.ACTIVE
        )
        .select_related("customer")
        .order_by("customer_id", "-is_default", "-created_at", "-id")
    ):
        methods.setdefault((method.customer_id, method.livemode), []).append(method)
    return methods


def payment_methods_added_after(
    *, customer, after, livemode
) -> QuerySet[PaymentMethod]:
    """The active methods of `customer` (a pk) on a side added after `after`;
    any may be an `OuterRef`, as in the collection engine's claim of
    installments waiting for a new method (of their plan's side)."""
    return PaymentMethod.objects.filter(
        customer_id=customer,
        livemode=livemode,
        status=PaymentMethod.Status.ACTIVE,
        created_at__gt=after,
    )


def own_payment_method(
    customer: Customer, public_id: str, *, livemode: bool = True
) -> PaymentMethod:
    """The customer's method of that side by its id: another side's is not
    found (a test method is never charged for a live plan, nor the reverse)."""
    methods = customer.payment_methods.filter(livemode=livemode).exclude(
        status=PaymentMethod.Status.DELETED
    )
    method = row_by_public_id(methods, public_id, "pm")
    if method is None:
        raise PaymentMethodNotFound()
    return method


def revoked_payment_method_count(customer: Customer, *, since: datetime) -> int:
    """Live methods the processor revoked since then (DESIGN section 6 score
    input: the score counts the live side only), counted even if the customer
    deleted them afterwards."""
    return customer.payment_methods.filter(livemode=True, revoked_at__gte=since).count()


def revoked_payment_method_counts(customer_pks, *, since: datetime) -> dict[int, int]:
    """`revoked_payment_method_count` for many customers in one query, keyed by
    customer pk (customers with none are absent)."""
    return dict(
        PaymentMethod.objects.filter(
            customer_id__in=customer_pks, livemode=True, revoked_at__gte=since
        )
        .order_by()
        .values("customer_id")
        .annotate(count=Count("id"))
        .values_list("customer_id", "count")
    )
