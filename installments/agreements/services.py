"""Making the agreement record (DESIGN section 18), in the transaction that
activates the plan, and the erasure's one change to it.

`agreement_record` is called by the checkout's settle step (both the card
completion and the transfer/USSD confirmation), after the deposit succeeded:
the key facts are read from the plan as it now is (`facts.plan_key_facts`),
the consent from the succeeding attempt, the PDF is made from them, and the
e-mail carrying it is recorded in the same transaction (sent after commit).
"""

import hashlib

from payments.methods.models import PaymentMethod
from payments.methods.terms import MANDATE_TERMS

from ..notifications.emails import hello, order, shop
from ..notifications.models import Message
from ..notifications.outgoing import Outgoing, plan_url
from ..notifications.services import messages_send_on_commit
from .document import agreement_pdf
from .facts import VERSION, plan_key_facts
from .models import Agreement

SEND_TASK = "send-agreement"
MANDATE_TERMS_NOT_RECORDED = "not recorded (set up before the terms were kept)"


def mandate_terms_of(attempt) -> dict:
    """The mandate terms the plan's collection method was created under, when
    the plan is collected from a bank mandate: {mandate_terms, version}; else
    {} (a card, or a manual plan). A mandate set up before its terms were
    kept says so, rather than claiming the customer accepted today's."""
    method = attempt.payment_method
    if method is None or method.type != PaymentMethod.Type.BANK:
        return {}
    return {
        "mandate_terms": MANDATE_TERMS,
        "mandate_terms_version": method.mandate_terms_version
        or MANDATE_TERMS_NOT_RECORDED,
    }


def agreement_record(plan, attempt) -> Agreement:
    """The agreement of `plan` (just activated by `attempt`); made once: a
    plan that has one keeps it."""
    existing = Agreement.objects.filter(plan=plan).first()
    if existing is not None:
        return existing
    facts = plan_key_facts(plan) | mandate_terms_of(attempt)
    accepted_at = attempt.terms_accepted_at or attempt.settled_at or plan.activated_at
    accepted_at = accepted_at.replace(microsecond=0)
    document = agreement_pdf(
        facts=facts,
        plan_id=plan.public_id,
        order_reference=plan.order_reference,
        customer_id=plan.customer.public_id,
        accepted_at=accepted_at,
    )
    agreement = Agreement.objects.create(
        plan=plan,
        customer=plan.customer,
        merchant=plan.merchant,
        version=VERSION,
        accepted_at=accepted_at,
        ip=attempt.terms_ip,
        user_agent=attempt.terms_user_agent,
        key_facts=facts,
        document=document,
        document_sha256=hashlib.sha256(document).hexdigest(),
    )
    messages_send_on_commit([agreement_email(agreement)], task_name=SEND_TASK)
    return agreement


def agreement_email(agreement: Agreement) -> Outgoing:
    """The e-mail that carries the agreement's PDF (e-mail only)."""
    plan, customer = agreement.plan, agreement.customer
    reference = order(plan.order_reference)
    return Outgoing(
        kind=Message.Kind.AGREEMENT,
        subject=agreement.public_id,
        channel=Message.Channel.EMAIL,
        customer_pk=customer.pk,
        recipient=customer.email,
        title=f"Your agreement for order {reference}",
        body=(
            f"{hello(customer)}\n\n"
            f"Attached is the agreement for your installment plan for order "
            f"{reference} from {shop(plan.merchant)}: the key facts you accepted, "
            "with every amount and date.\n\n"
            f"Its SHA-256 fingerprint: {agreement.document_sha256}\n\n"
            f"You can download it again from your plan:\n{plan_url(plan)}\n"
        ),
        agreement_pk=agreement.pk,
    )


def agreements_anonymise(customer) -> int:
    """A customer's erasure (DESIGN 18): the address and browser of their
    consent go; the facts, the PDF (which never names them) and its hash stay.
    The one UPDATE the database allows on an agreement."""
    return Agreement.objects.filter(customer=customer).update(ip=None, user_agent="")
