"""Payment links (endpoints 4-6) and the sessions their visitors open."""

from django.db import transaction

from config.api.errors import UnsupportedCurrency
from config.api.ids import random_token
from installments.plans import rules
from merchants.audit.actors import SYSTEM, Actor
from merchants.audit.services import audit_record

from ..errors import PaymentLinkNotFound
from ..models import CheckoutSession, PaymentLink
from .sessions import SUPPORTED_CURRENCIES, session_create


def payment_link_create(
    *,
    merchant,
    title: str,
    amount: int,
    currency: str,
    description: str = "",
    redirect_url: str = "",
    actor: Actor = SYSTEM,
) -> PaymentLink:
    rules.check_amount(amount)
    if currency not in SUPPORTED_CURRENCIES:
        raise UnsupportedCurrency()
    with transaction.atomic():
        link = PaymentLink.objects.create(
            merchant=merchant,
            title=title,
            amount=amount,
            currency=currency,
            description=description,
            redirect_url=redirect_url,
        )
        _link_record(link, "payment_link.created", actor, amount=[None, amount])
    return link


def _link_record(link: PaymentLink, action: str, actor: Actor, **changes) -> None:
    audit_record(
        merchant=link.merchant,
        action=action,
        actor=actor,
        object_type="payment_link",
        object_id=link.public_id,
        changes=changes,
    )


def payment_link_toggle(
    *, merchant, link_id: str, is_active: bool, actor: Actor = SYSTEM
) -> PaymentLink:
    """Switch a link of the merchant's on or off; another merchant's id is 404."""
    with transaction.atomic(durable=True):
        link = (
            PaymentLink.objects.select_for_update()
            .filter(merchant=merchant, public_id=link_id)
            .first()
        )
        if link is None:
            raise PaymentLinkNotFound()
        if link.is_active != is_active:
            link.is_active = is_active
            link.save(update_fields=["is_active", "updated_at"])
            action = "activated" if is_active else "deactivated"
            _link_record(
                link,
                f"payment_link.{action}",
                actor,
                is_active=[not is_active, is_active],
            )
    return link


def link_order_reference(link: PaymentLink) -> str:
    """Each visit is its own order: `<link id>-<random>`, so the merchant can
    tell which link an event's `orderReference` came from."""
    return f"{link.public_id}-{random_token(64)}"


def payment_link_session_open(*, link: PaymentLink) -> CheckoutSession:
    """A fresh 30-minute session for one visit of an active link."""
    return session_create(
        merchant=link.merchant,
        amount=link.amount,
        currency=link.currency,
        title=link.title,
        order_reference=link_order_reference(link),
        payment_link=link,
    ).session
