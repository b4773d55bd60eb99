"""Reads of a customer's payment methods."""

from datetime import datetime

from django.db.models import Count, QuerySet

from config.api.ids import row_by_public_id

from ..customers.models import Customer
from .errors import PaymentMethodNotFound
from .models import PaymentMethod


def payment_methods_listed(customer: Customer) -> QuerySet[PaymentMethod]:
    """Active methods (default first, then newest) and revoked ones as history;
    deleted methods are gone from the listing."""
    return customer.payment_methods.exclude(
        status=PaymentMethod.Status.DELETED
    ).order_by("-is_default", "status", "-created_at", "-id")


def payment_methods_chargeable(customer: Customer) -> list[PaymentMethod]:
    """What an auto-debit may charge, in order: the default, then newest first."""
    return list(
        customer.payment_methods.filter(status=PaymentMethod.Status.ACTIVE).order_by(
            "-is_default", "-created_at", "-id"
        )
    )


def payment_methods_chargeable_by_customer(
    customer_pks,
) -> dict[int, list[PaymentMethod]]:
    """`payment_methods_chargeable` for many customers in one query (their
    `customer` loaded too), keyed by customer pk; a customer without active
    methods is absent."""
    methods: dict[int, list[PaymentMethod]] = {}
    for method in (
        PaymentMethod.objects.filter(
            customer_id__in=customer_pks, status=PaymentMethod.Status.ACTIVE
        )
        .select_related("customer")
        .order_by("customer_id", "-is_default", "-created_at", "-id")
    ):
        methods.setdefault(method.customer_id, []).append(method)
    return methods


def payment_methods_added_after(*, customer, after) -> QuerySet[PaymentMethod]:
    """The active methods of `customer` (a pk) added after `after`; either may
    be an `OuterRef`, as in the collection engine's claim of installments
    waiting for a new method."""
    return PaymentMethod.objects.filter(
        customer_id=customer, status=PaymentMethod.Status.ACTIVE, created_at__gt=after
    )


def own_payment_method(customer: Customer, public_id: str) -> PaymentMethod:
    methods = customer.payment_methods.exclude(status=PaymentMethod.Status.DELETED)
    method = row_by_public_id(methods, public_id, "pm")
    if method is None:
        raise PaymentMethodNotFound()
    return method


def revoked_payment_method_count(customer: Customer, *, since: datetime) -> int:
    """Methods the processor revoked since then (DESIGN section 6 score input),
    counted even if the customer deleted them afterwards."""
    return customer.payment_methods.filter(revoked_at__gte=since).count()


def revoked_payment_method_counts(customer_pks, *, since: datetime) -> dict[int, int]:
    """`revoked_payment_method_count` for many customers in one query, keyed by
    customer pk (customers with none are absent)."""
    return dict(
        PaymentMethod.objects.filter(
            customer_id__in=customer_pks, revoked_at__gte=since
        )
        .order_by()
        .values("customer_id")
        .annotate(count=Count("id"))
        .values_list("customer_id", "count")
    )
