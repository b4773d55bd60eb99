"""Customers with a phone for text receipts, and a refund as the receipts see it."""

from types import SimpleNamespace

PHONE = "+2348031234567"


def with_phone(setup):
    customer = setup.shopper.customer
    customer.sms_phone = PHONE
    customer.save(update_fields=["sms_phone"])


def refund(plan, **extra):
    """Any object with the documented attributes (A2's Refund in the end)."""
    return SimpleNamespace(
        public_id="rf_test0001", amount=60_000, currency="NGN", plan=plan, **extra
    )
