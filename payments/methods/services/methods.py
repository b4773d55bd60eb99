"""A customer's stored payment methods: save, set default, delete.

Every change to a customer's methods first locks the customer's row, so changes
for one customer happen one at a time (two concurrent "set default" requests
cannot both clear and set), and the database's partial unique index (one
default per customer) stays the last word.
"""

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from config.api.ids import random_token

from ...customers.models import Customer
from ...gateway.errors import ProcessorError
from ...gateway.processors import (
    Authorization,
    Processor,
    processor_for,
    side_processor,
)
from ...gateway.services.charges import VERIFICATION_AMOUNT
from .. import selectors
from ..errors import PaymentMethodInactive, ReferenceNotFound
from ..models import PaymentMethod, secret_digest

CARD_BRANDS = {
    "visa": "Visa",
    "mastercard": "Mastercard",
    "verve": "Verve",
    "american express": "American Express",
    "amex": "American Express",
}


def new_reference(prefix: str) -> str:
    """A processor reference: letters, digits and '-', as Paystack accepts."""
    return f"{prefix}-{random_token(128)}"


def verification_open(
    model, prefix: str, *, customer: Customer, processor, livemode: bool, **fields
):
    """A card setup or a bank mandate (`model`) on a side (`livemode`): a new
    method's verification charge of VERIFICATION_AMOUNT at `processor` (that
    side's), under a new reference of ours. Returns it and what the
    processor's first call for it names."""
    row = model.objects.create(
        reference=new_reference(prefix),
        customer=customer,
        processor=processor.name,
        livemode=livemode,
        amount=VERIFICATION_AMOUNT,
        **fields,
    )
    charge = {
        "email": customer.email,
        "amount": VERIFICATION_AMOUNT,
        "reference": row.reference,
    }
    return row, charge


def own_verification(model, customer: Customer, reference: str):
    """The customer's own card setup or bank mandate (`model`) by its reference."""
    row = model.objects.filter(reference=reference, customer=customer).first()
    if row is None:
        raise ReferenceNotFound()
    return row


def verification_processor(row) -> Processor:
    """The processor a card setup or bank mandate was started at (its side's:
    the sandbox for a test one): every later step of it goes there. Refused
    when that is no longer its side's processor (a live one started on the
    sandbox before the deployment moved to a real processor: the method it
    would save could never be charged)."""
    processor = processor_for(row.processor)
    if processor is None or processor.name != side_processor(row.livemode).name:
        raise ProcessorError(
            f"This was started with {row.processor}, which the service no longer "
            "uses; start again."
        )
    return processor


def card_label(*, brand: str, last4: str) -> str:
    name = CARD_BRANDS.get(brand.strip().lower(), "Card")
    return f"{name} •••• {last4}"


def bank_label(*, bank_name: str, account_number: str) -> str:
    return f"{bank_name} ••••{account_number[-4:]}"


def lock_customer(customer: Customer) -> Customer:
    return Customer.objects.select_for_update().get(pk=customer.pk)


@dataclass(frozen=True)
class NewMethod:
    type: str
    processor: str
    livemode: bool
    authorization: Authorization
    fingerprint_source: str
    label: str
    last4: str
    brand: str = ""
    exp_month: str = ""
    exp_year: str = ""
    bank_code: str = ""
    bank_name: str = ""


def payment_method_store(
    *, customer: Customer, new: NewMethod, make_default: bool
) -> PaymentMethod:
    """Save a verified authorization; the caller holds the customer's lock.

    The same card (processor signature) or bank account saved again on the same
    side while an active method has it updates that method with the fresh
    authorization instead of adding a duplicate; saved on the other side it is
    another method (a test card is never a live one). The customer's first
    active method of a side becomes that side's default whatever
    `make_default` says.
    """
    fingerprint = secret_digest(new.fingerprint_source)
    fields = {
        "type": new.type,
        "processor": new.processor,
        "authorization_code": new.authorization.authorization_code,
        "authorization_code_hash": secret_digest(new.authorization.authorization_code),
        "label": new.label,
        "last4": new.last4,
        "brand": new.brand,
        "exp_month": new.exp_month,
        "exp_year": new.exp_year,
        "bank_code": new.bank_code,
        "bank_name": new.bank_name,
    }
    method = (
        PaymentMethod.objects.select_for_update()
        .filter(
            customer=customer,
            livemode=new.livemode,
            fingerprint=fingerprint,
            status=PaymentMethod.Status.ACTIVE,
        )
        .first()
    )
    if method is None:
        method = PaymentMethod.objects.create(
            customer=customer, livemode=new.livemode, fingerprint=fingerprint, **fields
        )
    else:
        for name, value in fields.items():
            setattr(method, name, value)
        method.save(update_fields=[*fields, "updated_at"])
    has_default = (
        PaymentMethod.objects.filter(
            customer=customer, livemode=method.livemode, is_default=True
        )
        .exclude(pk=method.pk)
        .exists()
    )
    if make_default or not (has_default or method.is_default):
        _make_default(customer, method)
    return method


def _make_default(customer: Customer, method: PaymentMethod) -> None:
    # Clear first, then set: the partial unique index allows one default (of
    # each side: the other side's default stays).
    PaymentMethod.objects.filter(
        customer=customer, livemode=method.livemode, is_default=True
    ).exclude(pk=method.pk).update(is_default=False, updated_at=timezone.now())
    if not method.is_default:
        method.is_default = True
        method.save(update_fields=["is_default", "updated_at"])


def promote_newest_default(
    customer: Customer, *, livemode: bool = True
) -> PaymentMethod | None:
    """After a side's default went away: its newest active method becomes
    default."""
    newest = (
        PaymentMethod.objects.filter(
            customer=customer, livemode=livemode, status=PaymentMethod.Status.ACTIVE
        )
        .order_by("-created_at", "-id")
        .first()
    )
    if newest is not None:
        _make_default(customer, newest)
    return newest


def payment_method_set_default(*, customer: Customer, public_id: str) -> PaymentMethod:
    with transaction.atomic(durable=True):
        customer = lock_customer(customer)
        method = selectors.own_payment_method(customer, public_id)
        if not method.is_active:
            raise PaymentMethodInactive()
        _make_default(customer, method)
    return method


def payment_method_delete(*, customer: Customer, public_id: str) -> PaymentMethod:
    """Removes the method from listings and from charging; the row stays for
    the history of charges made with it."""
    with transaction.atomic(durable=True):
        customer = lock_customer(customer)
        method = selectors.own_payment_method(customer, public_id)
        was_default = method.is_default
        method.is_default = False
        method.transition_to(PaymentMethod.Status.DELETED, update_fields=["is_default"])
        if was_default:
            promote_newest_default(customer, livemode=method.livemode)
    return method
