"""Sending recorded messages: claim under a lease, send one by one outside any
transaction, record each as soon as the provider answered (services.py says
when, and docs/operations.md, "Customer messages", what is sent again)."""

import logging
import uuid
from dataclasses import dataclass
from datetime import timedelta
from time import monotonic

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from config.sms import SmsError, SmsMessage, SmsNotSent, sms_backend

from ..paylinks.models import PayLink
from ..paylinks.services import pay_link_url, pay_links_for_messages
from . import emails
from .models import Message
from .outgoing import PAY_LINK, Outgoing

logger = logging.getLogger("installments.notifications")

# The sweep takes a message again at most this many times in all, and gives up
# on one this old: a reminder or receipt days late misleads more than it helps.
MAX_ATTEMPTS = 5
GIVE_UP_AFTER = timedelta(hours=48)

Status = Message.Status


def lease() -> timedelta:
    """How long a sender holds the messages it took (longer than any task
    runs: django-q2 stops one at its `timeout`)."""
    return timedelta(seconds=settings.MESSAGE_LEASE_SECONDS)


@dataclass
class Tally:
    sent: int = 0
    failed: int = 0
    more: bool = False  # stopped by the time budget with work left

    def add(self, other: "Tally") -> None:
        self.sent += other.sent
        self.failed += other.failed

    def line(self) -> str:
        return f"{self.sent} sent, {self.failed} failed" + (
            " (continuing)" if self.more else ""
        )


def _pay_links(outgoing: list[Outgoing]) -> dict[str, int]:
    """{message source: pay link pk} for the messages that carry one: the link
    made for the message when it was first recorded, else a new one."""
    made = pay_links_for_messages(
        {
            item.source: item.pay_plan_pk
            for item in outgoing
            if item.pay_plan_pk is not None and item.pay_link_pk is None
        }
    )
    return {
        item.source: item.pay_link_pk or made[item.source]
        for item in outgoing
        if item.pay_link_pk is not None or item.pay_plan_pk is not None
    }


def _rows(outgoing: list[Outgoing], *, token, attempts: int, until) -> list:
    links = _pay_links(outgoing)
    return [
        Message(
            kind=item.kind,
            subject=item.subject,
            channel=item.channel,
            customer_id=item.customer_pk,
            merchant_id=item.merchant_pk,
            recipient=item.recipient,
            title=item.title,
            body=item.body,
            pay_link_id=links.get(item.source),
            agreement_id=item.agreement_pk,
            claim=token,
            attempts=attempts,
            lease_expires_at=until,
        )
        for item in outgoing
    ]


def messages_claim(outgoing: list[Outgoing]) -> list[Message]:
    """Insert a row per message, held by this run's lease; the rows this call
    inserted (those already recorded, by an earlier or a concurrent run, are
    skipped)."""
    if not outgoing:
        return []
    token = uuid.uuid4()
    until = timezone.now() + lease()
    Message.objects.bulk_create(
        _rows(outgoing, token=token, attempts=1, until=until), ignore_conflicts=True
    )
    return list(Message.objects.filter(claim=token).order_by("id"))


def messages_record(outgoing: list[Outgoing]) -> list[int]:
    """Insert a row per message in the caller's transaction, due at once and
    held by nobody: whoever claims it first (the task enqueued after the
    commit, or the sweep) sends it. The ids of the rows inserted."""
    if not outgoing:
        return []
    token = uuid.uuid4()
    Message.objects.bulk_create(
        _rows(outgoing, token=token, attempts=0, until=timezone.now()),
        ignore_conflicts=True,
    )
    return list(Message.objects.filter(claim=token).values_list("id", flat=True))


def _give_up(due, now) -> None:
    """Record as failed the due messages taken too often or too old."""
    Message.transition_where(
        due.filter(attempts__gte=MAX_ATTEMPTS),
        Status.FAILED,
        at=now,
        same={
            "lease_expires_at": None,
            "error": f"Not recorded after {MAX_ATTEMPTS} tries: it may or may not "
            "have been sent.",
        },
    )
    Message.transition_where(
        due.filter(created_at__lt=now - GIVE_UP_AFTER),
        Status.FAILED,
        at=now,
        same={
            "lease_expires_at": None,
            "error": "Not sent within 48 hours: too late to send.",
        },
    )


def messages_claim_due(limit: int, pks: list[int] | None = None) -> list[Message]:
    """Take up to `limit` messages whose lease has run out (only `pks`, when
    given) under a new lease. Rows another sender is taking are skipped; the
    UPDATE's own condition keeps two senders from taking one row where row
    locks do not exist (SQLite)."""
    now = timezone.now()
    token = uuid.uuid4()
    due = Message.objects.filter(status=Status.SENDING, lease_expires_at__lte=now)
    if pks is not None:
        due = due.filter(pk__in=pks)
    with transaction.atomic():
        ids = list(
            due.select_for_update(skip_locked=True, of=("self",))
            .order_by("lease_expires_at", "id")
            .values_list("id", flat=True)[:limit]
        )
        if not ids:
            return []
        due = due.filter(id__in=ids)
        _give_up(due, now)
        due.update(
            claim=token, attempts=F("attempts") + 1, lease_expires_at=now + lease()
        )
    return list(Message.objects.filter(claim=token).order_by("id"))


def _sent(message: Message, provider_id: str) -> None:
    # A success counts even from a sender whose lease ran out.
    Message.transition_where(
        Message.objects.filter(pk=message.pk),
        Status.SENT,
        same={"provider_id": provider_id, "error": "", "lease_expires_at": None},
    )


def _failed(message: Message, error: str, *, unsent: bool) -> None:
    """Only while the row is still this sender's (a sweep may have taken it
    over after the lease). Not sent for sure: left `sending` for the sweep."""
    mine = Message.objects.filter(pk=message.pk, claim=message.claim)
    if unsent:
        mine.filter(status=Status.SENDING).update(error=error[:255])
    else:
        Message.transition_where(
            mine, Status.FAILED, same={"error": error[:255], "lease_expires_at": None}
        )
    logger.warning("%s not sent: %s", message, error)


def _sms_sender():
    """`send(message) -> (provider id, error, unsent)`."""
    try:
        backend = sms_backend()
    except ImproperlyConfigured as error:
        logger.error("SMS_URL is not usable: %s", error)
        why = str(error)[:255]
        return lambda message: ("", why, False)

    def send(message: Message):
        try:
            return (
                backend.send(SmsMessage(to=message.recipient, body=message.body)),
                "",
                False,
            )
        except SmsNotSent as error:
            return "", str(error), True
        except SmsError as error:
            return "", str(error), False

    return send


def _with_pay_links(claimed: list[Message]) -> None:
    """Put each message's pay link where its body says (`outgoing.PAY_LINK`): the
    URL is derived from the link's id now, so no table holds its token."""
    links = PayLink.objects.in_bulk(
        {m.pay_link_id for m in claimed if m.pay_link_id is not None}
    )
    urls = {pk: pay_link_url(link) for pk, link in links.items()}
    for message in claimed:
        if message.pay_link_id is not None:
            message.body = message.body.replace(PAY_LINK, urls[message.pay_link_id])


def _attachment(message: Message) -> tuple[str, bytes, str] | None:
    """The agreement's PDF as it was stored, for the e-mail that carries it."""
    if message.agreement_id is None:
        return None
    agreement = message.agreement
    return (
        f"agreement-{agreement.plan.public_id}.pdf",
        bytes(agreement.document),
        "application/pdf",
    )


def messages_deliver(claimed: list[Message]) -> Tally:
    """Send the claimed messages one by one (never inside a transaction),
    recording each as sent or failed, with the reason, as soon as it is known.
    Stops before its lease could run out: the rest is the sweep's."""
    tally = Tally()
    if not claimed:
        return tally
    started, held = monotonic(), lease().total_seconds() / 2
    _with_pay_links(claimed)
    mails = [m for m in claimed if m.channel == Message.Channel.EMAIL]
    texts_ = [m for m in claimed if m.channel == Message.Channel.SMS]

    def record(message: Message, provider_id: str, error: str, unsent: bool):
        if error:
            _failed(message, error, unsent=unsent)
            tally.failed += 1
        else:
            _sent(message, provider_id)
            tally.sent += 1

    if mails:
        with emails.one_by_one() as send:
            for message in mails:
                if monotonic() - started > held:
                    return tally
                outcome = send(
                    message.title,
                    message.body,
                    message.recipient,
                    f"message-{message.pk}",
                    attachment=_attachment(message),
                )
                record(message, "", outcome.error, outcome.unsent)
    if texts_:
        send_sms = _sms_sender()
        for message in texts_:
            if monotonic() - started > held:
                return tally
            record(message, *send_sms(message))
    return tally
