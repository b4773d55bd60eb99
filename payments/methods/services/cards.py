"""Card redirect flow (endpoints 12 and 13).

initialize: a CardSetup with our own reference, and a 5000 kobo transaction at the
processor whose authorization_url the customer visits. verify: ask the processor
how that transaction ended; on success record the charge, save (or refresh) the
card, and refund the 5000 kobo after commit.
"""

from typing import TYPE_CHECKING

from django.db import transaction

from ...customers.models import Customer
from ...gateway.models import ProcessorCharge
from ...gateway.processors import (
    Authorization,
    TransactionResult,
    TransactionStatus,
    side_processor,
)
from ...gateway.services.charges import (
    charge_record_result,
    verification_refund_schedule,
)
from ..errors import (
    CardNotAuthorized,
    CardNotReusable,
    PaymentFailed,
)
from ..models import CardSetup, PaymentMethod
from .methods import (
    NewMethod,
    card_label,
    lock_customer,
    own_verification,
    payment_method_store,
    verification_open,
    verification_processor,
)

if TYPE_CHECKING:
    from merchants.models import Merchant

PURPOSE = ProcessorCharge.Purpose.CARD_VERIFICATION


def card_setup_initialize(
    *,
    customer: Customer,
    callback_url: str,
    is_default: bool,
    merchant: "Merchant | None" = None,
    livemode: bool = True,
) -> CardSetup:
    """A card setup of the side of `merchant` (the checkout's, when the card is
    added from one: a test checkout saves a test card, at the sandbox), or of
    `livemode` without one (the customer API names the side; the customer's
    own account pages are live)."""
    if merchant is not None:
        livemode = merchant.livemode
    processor = side_processor(livemode)
    setup, charge = verification_open(
        CardSetup,
        "card",
        customer=customer,
        processor=processor,
        livemode=livemode,
        callback_url=callback_url,
        is_default=is_default,
    )
    initialized = processor.initialize_transaction(
        **charge,
        callback_url=callback_url,
        metadata={"purpose": PURPOSE, "customer_id": customer.public_id},
    )
    setup.authorization_url = initialized.authorization_url
    setup.save(update_fields=["authorization_url"])
    return setup


def card_setup_verify(
    *, customer: Customer, reference: str, is_default: bool | None = None
) -> PaymentMethod:
    setup = own_verification(CardSetup, customer, reference)
    if setup.status == CardSetup.Status.SUCCEEDED:
        return setup.payment_method
    if setup.status == CardSetup.Status.FAILED:
        if setup.failure_message == CardNotReusable.message:
            raise CardNotReusable()
        raise PaymentFailed(setup.failure_message or None)

    result = verification_processor(setup).verify_transaction(reference=reference)
    if result is None or result.status in (
        TransactionStatus.ABANDONED,
        TransactionStatus.PENDING,
    ):
        raise CardNotAuthorized()
    if not result.succeeded:
        message = result.gateway_response or PaymentFailed.message
        _fail(setup, result, f"The card was declined: {message}")
        raise PaymentFailed(f"The card was declined: {message}")
    authorization = result.authorization
    if authorization is None or not authorization.reusable:
        _fail(setup, result, CardNotReusable.message)
        raise CardNotReusable()

    with transaction.atomic(durable=True):
        customer = lock_customer(customer)
        setup = CardSetup.objects.select_for_update().get(pk=setup.pk)
        if setup.status == CardSetup.Status.SUCCEEDED:
            return setup.payment_method  # a concurrent verify finished first
        method = payment_method_store(
            customer=customer,
            new=_new_card(setup, authorization),
            make_default=setup.is_default if is_default is None else is_default,
        )
        charge = charge_record_result(
            result=result,
            processor=setup.processor,
            customer=customer,
            purpose=PURPOSE,
            payment_method=method,
            livemode=setup.livemode,
        )
        setup.payment_method = method
        setup.transition_to(
            CardSetup.Status.SUCCEEDED, update_fields=["payment_method"]
        )
        verification_refund_schedule(charge)
    return method


def _new_card(setup: CardSetup, authorization: Authorization) -> NewMethod:
    return NewMethod(
        type=PaymentMethod.Type.CARD,
        processor=setup.processor,
        livemode=setup.livemode,
        authorization=authorization,
        fingerprint_source=f"card:{authorization.signature}"
        if authorization.signature
        else f"card-authorization:{authorization.authorization_code}",
        label=card_label(brand=authorization.brand, last4=authorization.last4),
        last4=authorization.last4,
        brand=authorization.brand,
        exp_month=authorization.exp_month,
        exp_year=authorization.exp_year,
    )


def _fail(setup: CardSetup, result: TransactionResult, message: str) -> None:
    """Record the outcome; money taken for a card that cannot be kept goes back."""
    with transaction.atomic(durable=True):
        setup = CardSetup.objects.select_for_update().get(pk=setup.pk)
        if setup.status != CardSetup.Status.INITIALIZED:
            return
        charge = charge_record_result(
            result=result,
            processor=setup.processor,
            customer=setup.customer,
            purpose=PURPOSE,
            livemode=setup.livemode,
        )
        if charge.status == ProcessorCharge.Status.SUCCESS:
            verification_refund_schedule(charge)
        setup.failure_message = message[:255]
        setup.transition_to(CardSetup.Status.FAILED, update_fields=["failure_message"])
