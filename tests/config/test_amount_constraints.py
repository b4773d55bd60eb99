"""Every table of money refuses an amount of zero or less (config.models.
amount_positive), whatever code writes to it."""

import pytest
from django.apps import apps
from django.db import IntegrityError, transaction
from django.db.models import Q

from config.models import amount_positive
from payments.gateway.models import ProcessorCharge
from tests.factories import CustomerFactory

# An installment is not among them: a refund may reduce what it owes to 0, and
# then it is cancelled (DESIGN section 14; its own rule, installment_amount_valid,
# is tested with the refunds).
MONEY_TABLES = {
    "checkout.PaymentLink": "payment_link_amount_positive",
    "checkout.CheckoutSession": "checkout_session_amount_positive",
    "installments.RefundPart": "refund_part_amount_positive",
    "installments.RefundReduction": "refund_reduction_amount_positive",
    "installments.DepositAttempt": "deposit_attempt_amount_positive",
    "installments.EarlyPayment": "early_payment_amount_positive",
    "payments.ProcessorCharge": "processor_charge_amount_positive",
    "payments.ProcessorRefund": "processor_refund_amount_positive",
    "payments.LedgerTransaction": "ledger_amount_positive",
    "payments.Payout": "payout_amount_positive",
}


@pytest.mark.parametrize("label", sorted(MONEY_TABLES))
def test_each_money_table_declares_the_positive_amount_rule(label):
    model = apps.get_model(label)
    assert amount_positive(MONEY_TABLES[label]) in model._meta.constraints


def test_the_rule_is_amount_greater_than_zero():
    rule = amount_positive("x_amount_positive")
    assert rule.condition == Q(amount__gt=0)
    assert rule.name == "x_amount_positive"


@pytest.mark.django_db
@pytest.mark.parametrize("amount", [0, -1])
def test_the_database_refuses_a_charge_of_no_money(amount):
    with pytest.raises(IntegrityError), transaction.atomic():
        ProcessorCharge.objects.create(
            reference=f"ref-{amount}",
            processor="sandbox",
            customer=CustomerFactory(),
            purpose=ProcessorCharge.Purpose.CARD_VERIFICATION,
            amount=amount,
            currency="NGN",
            status=ProcessorCharge.Status.SUCCESS,
        )
