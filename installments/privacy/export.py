"""Everything held about a customer, as they download it (DESIGN section 18):
one JSON document, amounts in kobo. Only rows of that customer, and no secret:
no password hash, token or sign-in code; a message that carried a sign-in code
or a reset link is listed with its body withheld."""

import json

from django.core.serializers.json import DjangoJSONEncoder

from payments.customers.models import Customer
from payments.customers.privacy import customer_profile_export
from payments.methods.models import PaymentMethod

from ..agreements.models import Agreement
from ..deposits.models import DepositAttempt
from ..disputes.models import Dispute
from ..early.models import EarlyPayment
from ..notifications.models import Message
from ..plans.models import Installment, PaymentPlan
from ..refunds.models import Refund

WITHHELD = "[withheld: it held a sign-in code or a password-reset link]"

PLAN_FIELDS = (
    "public_id",
    "merchant__business_name",
    "order_reference",
    "currency",
    "total_amount",
    "deposit_amount",
    "schedule_type",
    "installment_count",
    "collection",
    "amount_refunded",
    "status",
    "created_at",
    "activated_at",
    "completed_at",
    "defaulted_at",
    "cancelled_at",
    "cancellation_reason",
)
INSTALLMENT_FIELDS = (
    "public_id",
    "plan__public_id",
    "sequence",
    "amount",
    "original_amount",
    "amount_paid",
    "currency",
    "due_date",
    "status",
    "attempts",
    "last_failure_reason",
    "paid_at",
    "reschedule_count",
)
PAYMENT_FIELDS = (
    "public_id",
    "plan__public_id",
    "reference",
    "channel",
    "amount",
    "currency",
    "status",
    "failure_reason",
    "created_at",
    "settled_at",
)
DEPOSIT_FIELDS = (*PAYMENT_FIELDS, "terms_accepted_at", "terms_ip", "terms_user_agent")
EARLY_FIELDS = (*PAYMENT_FIELDS, "kind")
REFUND_FIELDS = (
    "public_id",
    "plan__public_id",
    "amount_requested",
    "amount",
    "amount_returned",
    "currency",
    "reason",
    "status",
    "created_at",
    "processed_at",
)
METHOD_FIELDS = (
    "public_id",
    "type",
    "status",
    "is_default",
    # A test method (saved in a test checkout) is labelled so.
    "livemode",
    "label",
    "last4",
    "brand",
    "exp_month",
    "exp_year",
    "bank_name",
    "created_at",
    "revoked_at",
    "deleted_at",
)


def _plans(customer: Customer) -> dict:
    plans = PaymentPlan.objects.filter(customer=customer).order_by("created_at", "id")
    return {
        "plans": list(plans.values(*PLAN_FIELDS)),
        "installments": list(
            Installment.objects.filter(plan__customer=customer)
            .order_by("plan_id", "sequence")
            .values(*INSTALLMENT_FIELDS)
        ),
    }


def _payments(customer: Customer) -> dict:
    return {
        "deposit_payments": list(
            DepositAttempt.objects.filter(customer=customer)
            .order_by("created_at", "id")
            .values(*DEPOSIT_FIELDS)
        ),
        "early_payments": list(
            EarlyPayment.objects.filter(customer=customer)
            .order_by("created_at", "id")
            .values(*EARLY_FIELDS)
        ),
    }


DISPUTE_FIELDS = (
    "public_id",
    "plan__public_id",
    "collection_reference",
    "amount",
    "currency",
    "reason",
    "status",
    "due_at",
    "created_at",
    "resolved_at",
)


def _disputes(customer: Customer) -> dict:
    """The disputes of their payments their bank raised (DESIGN section 19)."""
    return {
        "disputes": list(
            Dispute.objects.filter(plan__customer=customer)
            .order_by("created_at", "id")
            .values(*DISPUTE_FIELDS)
        )
    }


def _refunds(customer: Customer) -> dict:
    return {
        "refunds": list(
            Refund.objects.filter(plan__customer=customer)
            .order_by("created_at", "id")
            .values(*REFUND_FIELDS)
        )
    }


def _methods(customer: Customer) -> dict:
    """Saved methods as the customer sees them listed: masked (brand and last
    4 digits), never the processor's authorization."""
    return {
        "saved_methods": list(
            PaymentMethod.objects.filter(customer=customer)
            .order_by("created_at", "id")
            .values(*METHOD_FIELDS)
        )
    }


def _messages(customer: Customer) -> dict:
    rows = []
    for message in Message.objects.filter(customer=customer).order_by(
        "created_at", "id"
    ):
        secret = message.kind in Message.SECRET_KINDS
        rows.append(
            {
                "kind": message.kind,
                "channel": message.channel,
                "recipient": message.recipient,
                "status": message.status,
                "created_at": message.created_at,
                "sent_at": message.sent_at,
                "title": message.title,
                "body": WITHHELD if secret else message.body,
            }
        )
    return {"messages": rows}


def _agreements(customer: Customer) -> dict:
    """The agreement records of the customer's plans: what they accepted, when
    and from where, and the PDF's fingerprint (the PDF itself is downloadable
    from each plan's page)."""
    rows = Agreement.objects.filter(customer=customer).order_by("created_at", "id")
    return {
        "agreements": [
            {
                "id": row.public_id,
                "payment_plan_id": row.plan.public_id,
                "version": row.version,
                "accepted_at": row.accepted_at,
                "ip": row.ip,
                "user_agent": row.user_agent,
                "key_facts": row.key_facts,
                "document_sha256": row.document_sha256,
            }
            for row in rows.select_related("plan")
        ]
    }


# Each gives some sections of the document; a package holding more of the
# customer's data adds its function here.
EXPORTERS = [
    _plans,
    _payments,
    _refunds,
    _disputes,
    _methods,
    _messages,
    _agreements,
]


def customer_data_export(customer: Customer) -> dict:
    """The whole document (the format names its version)."""
    document = {"format": "installments-customer-data/1"}
    document.update(customer_profile_export(customer))
    for exporter in EXPORTERS:
        document.update(exporter(customer))
    return document


def customer_data_json(customer: Customer) -> str:
    return json.dumps(
        customer_data_export(customer), cls=DjangoJSONEncoder, indent=2, sort_keys=True
    )
