"""What the purge deletes, in order: child rows before the rows they point to.

A step names its model by label (as a ForeignKey to a higher app does), so the
purge reaches rows of apps above installments (checkout) and beside it without
importing them. One more kind of record is one more line, placed before the
rows it points to; a model that points to a plan with PROTECT and is missing
here makes the purge fail (ProtectedError), the batch roll back and nothing go,
which `test_every_row_pointing_to_a_plan_has_a_step` catches first.

The ledger's transactions and lines, and the processor's charges and refunds,
are kept (docs/operations.md, "Records retention", says why).
"""

from collections.abc import Callable
from dataclasses import dataclass

from django.apps import apps
from django.db.models import Q

from config.models import AppendOnlyQuerySet


@dataclass(frozen=True)
class Batch:
    """The rows one batch deletes: the plans' pks and, for the rows found by
    what they say rather than by a key, the pks found for them."""

    plan_pks: list[int]
    customer_pks: list[int]
    message_pks: list[int]
    event_pks: list[int]


@dataclass(frozen=True)
class Step:
    model: str  # "app.Model"
    rows: Callable[[Batch], Q]

    def run(self, batch: Batch) -> int:
        """Delete this step's rows of the batch; returns how many went."""
        model = apps.get_model(self.model)
        rows = model._default_manager.filter(self.rows(batch))
        if isinstance(rows, AppendOnlyQuerySet):
            return rows.purge()
        _, per_model = rows.delete()
        return per_model.get(self.model, 0)


def of_plans(path: str) -> Callable[[Batch], Q]:
    """The rows whose `path` is one of the batch's plans."""
    return lambda batch: Q(**{f"{path}__in": batch.plan_pks})


def of_customers(path: str) -> Callable[[Batch], Q]:
    return lambda batch: Q(**{f"{path}__in": batch.customer_pks})


PLAN_STEPS = [
    # Webhook events naming the plan, and their deliveries.
    Step("webhooks.DeliveryAttempt", lambda batch: Q(event__in=batch.event_pks)),
    Step("webhooks.Delivery", lambda batch: Q(event__in=batch.event_pks)),
    Step("webhooks.Event", lambda batch: Q(pk__in=batch.event_pks)),
    # Messages about the plan (selectors.messages_about).
    Step("installments.Message", lambda batch: Q(pk__in=batch.message_pks)),
    # The agreement (its e-mail first: the message points to it).
    Step("installments.Message", of_plans("agreement__plan")),
    Step("installments.Agreement", of_plans("plan")),
    Step("installments.PayLink", of_plans("plan")),
    Step("installments.InstallmentStatusChange", of_plans("installment__plan")),
    Step("installments.EarlyPaymentItem", of_plans("early_payment__plan")),
    Step("installments.EarlyPayment", of_plans("plan")),
    Step("installments.RefundReduction", of_plans("refund__plan")),
    Step("installments.RefundPart", of_plans("refund__plan")),
    Step("installments.RefundIdempotencyRecord", of_plans("refund__plan")),
    Step("installments.Refund", of_plans("plan")),
    Step("installments.Reschedule", of_plans("plan")),
    Step("installments.Dispute", of_plans("plan")),
    Step("installments.Installment", of_plans("plan")),
    Step("installments.DepositAttempt", of_plans("plan")),
    Step("checkout.IdempotencyRecord", of_plans("session__plan")),
    Step("checkout.CheckoutSession", of_plans("plan")),
    Step("installments.PaymentPlanStatusChange", of_plans("plan")),
    Step("installments.PaymentPlan", of_plans("pk")),
]

# A customer with no plan left and nothing kept that names them
# (selectors.customers_due).
CUSTOMER_STEPS = [
    Step("payments.SignInCode", of_customers("customer")),
    Step("installments.Message", of_customers("customer")),
    Step("payments.CardSetup", of_customers("customer")),
    Step("payments.BankMandate", of_customers("customer")),
    Step("payments.PaymentMethod", of_customers("customer")),
    Step("payments.Customer", of_customers("pk")),
]
