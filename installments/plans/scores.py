"""The customer's stored score, recomputed from their history (DESIGN section 6).

Never incremented: each refresh counts the history in the database and applies
`rules.customer_score`, so refreshing twice changes nothing. Only the live side
counts (docs/test-mode.md, "Customers and their methods"): a test plan's
installments, failures and outcomes, and a test method's revocation, are play
money and never move the score a live checkout uses. The collection
engine refreshes the customers of each batch it records (a few grouped queries
for all of them); a processor revocation refreshes its customer through the
handler registered with payments.
"""

from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from payments.customers.models import Customer
from payments.methods.hooks import RevokedPaymentMethod
from payments.methods.selectors import revoked_payment_method_counts

from . import rules
from .history import InstallmentStatusChange
from .models import Installment, PaymentPlan

FAILED_ATTEMPTS_WINDOW = timedelta(days=180)
REVOCATIONS_WINDOW = timedelta(days=90)


def _paid_installments(pks: list[int]):
    """Each customer's live paid installments, on the first attempt or after."""
    return (
        Installment.objects.filter(
            plan__customer_id__in=pks,
            plan__merchant__livemode=True,
            status=Installment.Status.PAID,
        )
        .order_by()
        .values("plan__customer_id")
        .annotate(
            first=Count("id", filter=Q(attempts__lte=1)),
            retried=Count("id", filter=Q(attempts__gt=1)),
        )
    )


def histories(
    customer_pks: Iterable[int], *, now: datetime | None = None
) -> dict[int, rules.CustomerHistory]:
    """Each customer's history (four grouped queries, whatever their number)."""
    pks = sorted(set(customer_pks))
    now = now or timezone.now()
    counts: dict[int, dict[str, int]] = {pk: {} for pk in pks}
    for row in _paid_installments(pks):
        counts[row["plan__customer_id"]].update(
            paid_first_attempt=row["first"], paid_after_retry=row["retried"]
        )
    failures = (
        InstallmentStatusChange.objects.filter(
            installment__plan__customer_id__in=pks,
            installment__plan__merchant__livemode=True,
            to_status=Installment.Status.FAILED,
            changed_at__gte=now - FAILED_ATTEMPTS_WINDOW,
            # A declined early payment puts its installments back as they were
            # (a move to `failed` of one that was failed): no failed attempt.
            early_payment__isnull=True,
        )
        .order_by()
        .values("installment__plan__customer_id")
        .annotate(count=Count("id"))
    )
    for row in failures:
        counts[row["installment__plan__customer_id"]][
            "failed_attempts_last_180_days"
        ] = row["count"]
    plans = (
        PaymentPlan.objects.filter(
            customer_id__in=pks,
            merchant__livemode=True,
            status__in=(PaymentPlan.Status.COMPLETED, PaymentPlan.Status.DEFAULTED),
        )
        .order_by()
        .values("customer_id")
        .annotate(
            completed=Count("id", filter=Q(status=PaymentPlan.Status.COMPLETED)),
            defaulted=Count("id", filter=Q(status=PaymentPlan.Status.DEFAULTED)),
        )
    )
    for row in plans:
        counts[row["customer_id"]].update(
            completed_plans=row["completed"], defaulted_plans=row["defaulted"]
        )
    revoked = revoked_payment_method_counts(pks, since=now - REVOCATIONS_WINDOW)
    for pk, count in revoked.items():
        counts[pk]["revoked_methods_last_90_days"] = count
    return {pk: rules.CustomerHistory(**values) for pk, values in counts.items()}


def scores_refresh(*, customer_pks: Iterable[int]) -> dict[int, int]:
    """Recompute and store the customers' scores; returns pk -> score.

    The customers are locked (in pk order) before their history is counted, so
    two refreshes of one customer run one after the other and the later one
    counts what the earlier one's transaction wrote."""
    pks = sorted(set(customer_pks))
    if not pks:
        return {}
    now = timezone.now()
    with transaction.atomic(savepoint=False):
        customers = list(
            Customer.objects.select_for_update()
            .filter(pk__in=pks)
            .order_by("pk")
            .only("id", "score")
        )
        found = histories(pks, now=now)
        # One UPDATE per new score value (a batch's customers share few).
        changed: dict[int, list[int]] = defaultdict(list)
        for customer in customers:
            score = rules.customer_score(found[customer.pk])
            if customer.score != score:
                customer.score = score
                changed[score].append(customer.pk)
        for score, changed_pks in changed.items():
            Customer.objects.filter(pk__in=changed_pks).update(
                score=score, updated_at=now
            )
    return {customer.pk: customer.score for customer in customers}


def customer_score_refresh(customer) -> int:
    """One customer's fresh score (also written to `customer.score`)."""
    customer.score = scores_refresh(customer_pks=[customer.pk])[customer.pk]
    return customer.score


def on_payment_method_revoked(revoked: RevokedPaymentMethod) -> None:
    """Registered with payments: a revocation lowers the customer's score now."""
    scores_refresh(customer_pks=[revoked.customer_pk])
