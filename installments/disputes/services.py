"""Disputes (DESIGN section 19): opening one from the processor's word, the
processor's reminders, its resolution, the merchant's answer or acceptance,
the lapse of an unanswered one, and resuming a plan after a loss.

Money moves in the transaction of the fact, under the plan's lock (the lock a
refund of the plan takes too, so a dispute and a refund of one collection are
serialised: neither gives back more than the collection has left): on
opening, what the dispute holds leaves the wallet for `disputes_held`; won,
it returns; lost or accepted, it leaves the processor's balance and the
platform gives back its fee on it by the refunds' rule. The merchant's
answer and acceptance are asked of the processor outside any transaction,
then settled in a durable one (claim, call, settle without a claim: asking
the processor again is harmless, its answer replaces the last)."""

import hashlib
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from merchants.audit.actors import SYSTEM, Actor
from merchants.audit.services import audit_record
from payments.gateway.processors import processor_of
from payments.gateway.processors.dispute_types import (
    DisputeEvidence,
    EvidenceFile,
    ProcessorDispute,
)
from payments.ledger.selectors import collection_left, collections_by_reference
from payments.ledger.services import (
    DisputePosting,
    dispute_held_post,
    dispute_lost_post,
    dispute_released_post,
)
from webhooks.services import emit_events

from ..notifications.services import (
    messages_send_on_commit,
)
from ..plans.models import Installment, PaymentPlan
from ..plans.services import lock_plan
from . import events, texts
from .errors import DisputeDeadlinePassed, DisputeNotOpen
from .models import Dispute

Status = Dispute.Status


def _posting(dispute: Dispute) -> DisputePosting:
    plan = dispute.plan
    return DisputePosting(
        merchant=plan.merchant,
        customer=plan.customer,
        reference=dispute.public_id,
        collection_reference=dispute.collection_reference,
        amount=dispute.amount_held,
        currency=dispute.currency,
    )


def _what_was_paid(collection) -> tuple[PaymentPlan, Installment | None] | None:
    """The plan (and installment) whose collection a ledger row is."""
    if collection.resource_type == "installment":
        row = (
            Installment.objects.select_related("plan")
            .filter(public_id=collection.resource_id)
            .first()
        )
        return None if row is None else (row.plan, row)
    plan = PaymentPlan.objects.filter(public_id=collection.resource_id).first()
    return None if plan is None else (plan, None)


def _locked(dispute: Dispute) -> Dispute:
    return (
        Dispute.objects.select_for_update(of=("self",))
        .select_related("plan", "merchant", "installment")
        .get(pk=dispute.pk)
    )


def _emit(dispute: Dispute, name: str) -> None:
    emit_events(merchant=dispute.merchant, events=[events.dispute_event(name, dispute)])


def _open(found: ProcessorDispute) -> Dispute | None:
    """The dispute of `found`, made when new (inside the caller's transaction):
    the hold, the plan's collection stopped, `dispute.created` and the
    merchant's e-mail. None when no collection of ours has its reference."""
    existing = Dispute.objects.filter(processor_dispute_id=found.dispute_id).first()
    if existing is not None:
        return existing
    collection = collections_by_reference([found.transaction_reference]).get(
        found.transaction_reference
    )
    paid = None if collection is None else _what_was_paid(collection)
    if paid is None:
        return None
    plan = lock_plan(paid[0])
    existing = Dispute.objects.filter(processor_dispute_id=found.dispute_id).first()
    if existing is not None:
        return existing
    # Never more than the collection has left: refunds (or an earlier
    # dispute) may have given part of it back already.
    left = collection_left(found.transaction_reference)
    dispute = Dispute.objects.create(
        processor_dispute_id=found.dispute_id,
        plan=plan,
        merchant=plan.merchant,
        installment=paid[1],
        collection_reference=found.transaction_reference,
        amount=found.amount,
        amount_held=max(0, min(found.amount, left)),
        currency=found.currency,
        reason=(found.reason or "")[:255],
        category=(found.category or "")[:32],
        processor_status=found.status[:40],
        due_at=found.due_at or timezone.now(),
    )
    dispute.plan = plan
    if dispute.amount_held:
        dispute_held_post(dispute=_posting(dispute))
    plan.open_disputes += 1
    plan.save(update_fields=["open_disputes", "updated_at"])
    _emit(dispute, events.CREATED)
    messages_send_on_commit(texts.dispute_opened(dispute), task_name="dispute-notice")
    return dispute


def _charge_back(dispute: Dispute, plan: PaymentPlan, status: str, at) -> None:
    """Lost or accepted (dispute and plan locked): the held money leaves, the
    fee on it is given back, the plan waits `disputed`."""
    if dispute.amount_held:
        left = collection_left(dispute.collection_reference)
        dispute_lost_post(dispute=_posting(dispute), left=left)
    dispute.transition_to(status, at=at, update_fields=["processor_status"])
    plan.open_disputes -= 1
    plan.amount_charged_back += dispute.amount_held
    fields = ["open_disputes", "amount_charged_back"]
    if plan.status in (PaymentPlan.Status.ACTIVE, PaymentPlan.Status.COMPLETED):
        plan.transition_to(PaymentPlan.Status.DISPUTED, at=at, update_fields=fields)
    else:
        plan.save(update_fields=[*fields, "updated_at"])
    _emit(dispute, events.LOST)


def _win(dispute: Dispute, plan: PaymentPlan, at) -> None:
    if dispute.amount_held:
        dispute_released_post(dispute=_posting(dispute))
    dispute.transition_to(Status.WON, at=at, update_fields=["processor_status"])
    plan.open_disputes -= 1
    plan.save(update_fields=["open_disputes", "updated_at"])
    _emit(dispute, events.WON)


def _resolve(dispute: Dispute, won: bool, *, status=None) -> bool:
    """Resolve an open dispute (inside the caller's transaction); False when
    it was resolved already."""
    plan = lock_plan(dispute.plan)
    dispute = _locked(dispute)
    if not dispute.is_open:
        return False
    dispute.plan = plan
    now = timezone.now()
    if won:
        _win(dispute, plan, now)
    else:
        _charge_back(dispute, plan, status or Status.LOST, now)
    return True


# --- the processor's word (charge.dispute.*, re-read first) -----------------

OPENED, REMINDED, RESOLVED, UNKNOWN = "opened", "reminded", "resolved", "unknown"


def dispute_sync(found: ProcessorDispute, *, remind: bool = False) -> str:
    """What the processor says of a dispute now (`found`, re-read with `GET
    /dispute/:id`), applied inside the caller's transaction: the dispute is
    made if new, reminded (`remind`, the processor's reminder), resolved if
    the processor resolved it. Events arriving out of order or twice come to
    the same: one dispute, each fact once. Returns what it did."""
    dispute = _open(found)
    if dispute is None:
        return UNKNOWN
    did = OPENED
    if found.due_at is not None and dispute.is_open and dispute.due_at != found.due_at:
        dispute.due_at = found.due_at
        dispute.save(update_fields=["due_at", "updated_at"])
    if remind and dispute.status == Status.NEEDS_RESPONSE:
        dispute = _locked(dispute)
        dispute.reminders += 1
        dispute.processor_status = found.status[:40]
        dispute.save(update_fields=["reminders", "processor_status", "updated_at"])
        _emit(dispute, events.UPDATED)
        messages_send_on_commit(
            texts.dispute_reminder(dispute), task_name="dispute-notice"
        )
        did = REMINDED
    if found.won is not None:
        dispute.processor_status = found.status[:40]
        if _resolve(dispute, found.won):
            did = RESOLVED
    return did


def disputes_lapse(*, now: datetime | None = None) -> int:
    """An unanswered dispute past its deadline is lost (DESIGN section 19), as
    the processor resolves it; each in its own transaction."""
    now = now or timezone.now()
    lapsed = 0
    due = Dispute.objects.filter(status=Status.NEEDS_RESPONSE, due_at__lte=now)
    for dispute in due.order_by("due_at", "id"):
        with transaction.atomic(durable=True):
            lapsed += _resolve(dispute, False)
    return lapsed


# --- the merchant's answer ----------------------------------------------------


@dataclass(frozen=True)
class Answer:
    """The merchant's evidence: the processor's text fields and their files;
    the agreement and the payment history are added here."""

    customer_email: str
    customer_name: str
    customer_phone: str
    service_details: str
    delivery_address: str = ""
    delivery_date: str = ""
    message: str = ""
    files: tuple[EvidenceFile, ...] = ()


def _answerable(dispute: Dispute, now) -> None:
    if dispute.status != Status.NEEDS_RESPONSE:
        raise DisputeNotOpen(
            f"This dispute is {dispute.status.replace('_', ' ')}: it no longer "
            "takes an answer."
        )
    if dispute.due_at <= now:
        raise DisputeDeadlinePassed()


def dispute_answerable(dispute: Dispute) -> None:
    """409 when the dispute no longer takes an answer (the check
    `dispute_answer` makes), for a caller about to prepare one."""
    _answerable(dispute, timezone.now())


def _file_record(item: EvidenceFile, *, attached: bool) -> dict:
    return {
        "filename": item.filename,
        "content_type": item.content_type,
        "size": len(item.content),
        "sha256": hashlib.sha256(item.content).hexdigest(),
        "attached_automatically": attached,
    }


def _audited(dispute: Dispute, action: str, actor: Actor, changes: dict) -> None:
    audit_record(
        merchant=dispute.plan.merchant,
        action=action,
        actor=actor,
        object_type="dispute",
        object_id=dispute.public_id,
        changes=changes,
    )


def dispute_answer(
    *, dispute: Dispute, answer: Answer, attached=(), actor: Actor = SYSTEM
) -> Dispute:
    """Contest a dispute with evidence: the merchant's files and `attached`
    (the documents added for them: the agreement, the payment history) go to
    the processor, then the dispute is `under_review` and `dispute.updated`
    is sent. 409 when it no longer takes an answer."""
    _answerable(dispute, timezone.now())
    files = (*answer.files, *attached)
    evidence = DisputeEvidence(
        customer_email=answer.customer_email,
        customer_name=answer.customer_name,
        customer_phone=answer.customer_phone,
        service_details=answer.service_details,
        delivery_address=answer.delivery_address,
        delivery_date=answer.delivery_date,
        message=answer.message,
        files=files,
    )
    found = processor_of(dispute.merchant).answer_dispute(
        dispute_id=dispute.processor_dispute_id,
        evidence=evidence,
        refund_amount=dispute.amount,
    )
    with transaction.atomic(durable=True):
        dispute = _locked(dispute)
        _answerable(dispute, timezone.now())
        dispute.evidence = {
            "customer_email": answer.customer_email,
            "customer_name": answer.customer_name,
            "customer_phone": answer.customer_phone,
            "service_details": answer.service_details,
            "delivery_address": answer.delivery_address,
            "delivery_date": answer.delivery_date,
            "message": answer.message,
            "files": [
                *(_file_record(item, attached=False) for item in answer.files),
                *(_file_record(item, attached=True) for item in attached),
            ],
        }
        dispute.processor_status = found.status[:40]
        dispute.transition_to(
            Status.UNDER_REVIEW, update_fields=["evidence", "processor_status"]
        )
        _emit(dispute, events.UPDATED)
        _audited(
            dispute,
            "dispute.answered",
            actor,
            {
                "status": [Status.NEEDS_RESPONSE, Status.UNDER_REVIEW],
                "files": [None, len(dispute.evidence["files"])],
            },
        )
    return dispute


def dispute_accept(
    *, dispute: Dispute, message: str = "", actor: Actor = SYSTEM
) -> Dispute:
    """Give in: the processor is told, the customer keeps the money, and the
    dispute is `accepted` (lost in money terms: `dispute.lost`)."""
    _answerable(dispute, timezone.now())
    found = processor_of(dispute.merchant).accept_dispute(
        dispute_id=dispute.processor_dispute_id,
        refund_amount=dispute.amount,
        message=message or "Accepted by the merchant.",
    )
    with transaction.atomic(durable=True):
        plan = lock_plan(dispute.plan)
        dispute = _locked(dispute)
        if not dispute.is_open:
            raise DisputeNotOpen()
        dispute.plan = plan
        dispute.processor_status = found.status[:40]
        _charge_back(dispute, plan, Status.ACCEPTED, timezone.now())
        _audited(
            dispute, "dispute.accepted", actor, {"status": [None, Status.ACCEPTED]}
        )
    return dispute
