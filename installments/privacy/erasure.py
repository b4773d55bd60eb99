"""Erasing a customer's data (DESIGN section 18): refused with the reasons
while something they owe or are owed is open (rules.py); otherwise the
processor deactivates their saved methods first (outside any transaction),
then one transaction replaces everything that identifies them (name, e-mail,
phones, addresses and browsers) wherever it is held and makes signing in
impossible. Amounts, ledger lines, references and hashes stay for the
financial-records period.

The steps run in ERASURE_STEPS' order, each taking the customer's footprint
(what identified them, read before anything changed). A package above this one
adds its step from its AppConfig.ready (checkout: its sessions' e-mail).
"""

from django.contrib.admin.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db import transaction
from django.db.models import Q

from payments.customers.models import Customer
from payments.customers.privacy import (
    ERASED_TEXT,
    Footprint,
    customer_anonymise,
    customer_footprint,
    erased_email,
    rows_scrub,
)
from payments.gateway.models import (
    InboundRequest,
    SandboxAuthorization,
    SandboxTransaction,
)
from payments.methods.services.erasure import (
    payment_methods_deactivate_at_processor,
    payment_methods_retire,
)
from webhooks.models import Event

from ..agreements.services import agreements_anonymise
from ..deposits.models import DepositAttempt
from ..disputes.models import Dispute
from ..early.models import EarlyPayment
from ..notifications.models import Message
from ..plans.models import PaymentPlan
from ..refunds.models import Refund
from .errors import ErasureRefused
from .rules import erasure_refusals


def _methods(footprint: Footprint) -> None:
    payment_methods_retire(customer=Customer(pk=footprint.customer_pk))


def _deposits(footprint: Footprint) -> None:
    rows = DepositAttempt.objects.filter(customer_id=footprint.customer_pk)
    rows.update(terms_ip=None, terms_user_agent="")
    rows_scrub(rows, ["account_name"], footprint)


def _agreements(footprint: Footprint) -> None:
    """The consent's address and browser; the facts, the PDF (which never
    names the customer) and its hash stay."""
    agreements_anonymise(Customer(pk=footprint.customer_pk))


def _early_payments(footprint: Footprint) -> None:
    rows = EarlyPayment.objects.filter(customer_id=footprint.customer_pk)
    rows_scrub(rows, ["instructions"], footprint)


def _plans(footprint: Footprint) -> None:
    """Text the merchant typed about the customer's plans may name them."""
    plans = PaymentPlan.objects.filter(customer_id=footprint.customer_pk)
    rows_scrub(plans, ["order_reference", "cancellation_reason"], footprint)
    rows_scrub(Refund.objects.filter(plan__in=plans), ["reason"], footprint)
    # A resolved dispute's evidence as sent names the customer (DESIGN 19).
    disputes = Dispute.objects.filter(plan__in=plans)
    rows_scrub(disputes, ["reason", "evidence"], footprint)


def _messages(footprint: Footprint) -> None:
    """Messages to the customer keep when and how they went, not what they
    said or where; a message to a merchant about them loses their details."""
    Message.objects.filter(customer_id=footprint.customer_pk).update(
        recipient=ERASED_TEXT, title=ERASED_TEXT, body=ERASED_TEXT
    )
    mentions = Q(body__contains=footprint.public_id) | Q(
        body__icontains=footprint.email
    )
    if footprint.full_name:
        mentions |= Q(body__contains=footprint.full_name)
    rows_scrub(
        Message.objects.filter(merchant__isnull=False).filter(mentions),
        ["title", "body"],
        footprint,
    )


def _webhook_events(footprint: Footprint) -> None:
    """Events sent to merchants about the customer or their plans (text the
    merchant typed, a refund's reason, may name them)."""
    mentions = Q(body__contains=footprint.public_id) | Q(
        body__icontains=footprint.email
    )
    for plan_id in PaymentPlan.objects.filter(
        customer_id=footprint.customer_pk
    ).values_list("public_id", flat=True):
        mentions |= Q(body__contains=plan_id)
    rows_scrub(Event.objects.filter(mentions), ["body"], footprint)


def _processor_records(footprint: Footprint) -> None:
    """The test processor's own rows (sandbox) and the stored headers of
    processor calls that carry the customer's details."""
    placeholder = erased_email(Customer(public_id=footprint.public_id))
    SandboxAuthorization.objects.filter(email__iexact=footprint.email).update(
        email=placeholder
    )
    transactions = SandboxTransaction.objects.filter(email__iexact=footprint.email)
    rows_scrub(transactions, ["metadata"], footprint)
    transactions.update(email=placeholder)
    mentions = Q()
    for found in footprint.strings():
        mentions |= Q(headers__icontains=found)
    rows_scrub(InboundRequest.objects.filter(mentions), ["headers"], footprint)


def _admin_history(footprint: Footprint) -> None:
    """Django admin's history names a changed customer by its text form."""
    LogEntry.objects.filter(
        content_type=ContentType.objects.get_for_model(Customer),
        object_id=str(footprint.customer_pk),
    ).update(object_repr=f"Customer {footprint.public_id} ({ERASED_TEXT})")


ERASURE_STEPS = [
    _methods,
    _deposits,
    _agreements,
    _early_payments,
    _plans,
    _messages,
    _webhook_events,
    _processor_records,
    _admin_history,
]


def erasure_step_register(step) -> None:
    """Add a step (a function of the footprint) for a package above this one."""
    if step not in ERASURE_STEPS:
        ERASURE_STEPS.append(step)


def _refuse_if_open(customer: Customer) -> None:
    if reasons := erasure_refusals(customer):
        raise ErasureRefused(" ".join(reasons))


def customer_erase(*, customer: Customer) -> Customer:
    """Erase the customer's data at once, or ErasureRefused with the reasons
    (then nothing changed). A ProcessorError from deactivating a saved method
    stops it before anything here changed; asking again is safe."""
    if customer.erased_at is not None:
        return customer
    _refuse_if_open(customer)
    payment_methods_deactivate_at_processor(customer=customer)
    with transaction.atomic(durable=True):
        customer = Customer.objects.select_for_update().get(pk=customer.pk)
        # A plan or a payment may have started since the check above.
        _refuse_if_open(customer)
        deposits = DepositAttempt.objects.filter(customer=customer)
        footprint = customer_footprint(
            customer,
            ips=deposits.exclude(terms_ip=None).values_list("terms_ip", flat=True),
            user_agents=deposits.exclude(terms_user_agent="").values_list(
                "terms_user_agent", flat=True
            ),
        )
        for step in ERASURE_STEPS:
            step(footprint)
        customer = customer_anonymise(customer=customer, footprint=footprint)
    return customer
