"""The demo `make run` seeds (`manage.py seed_demo`, DESIGN section 16): the
demo accounts (merchants/demo.py) and the demo merchant's month of data
(`month.py`), played through the real services on the sandbox processor.

While it runs, e-mails and text messages are kept in memory instead of printed
(the console backends would bury the credentials under a month of receipts),
tasks run inline (django-q2 `sync`) at the moment of the month they belong to,
and webhooks go to a receiver on 127.0.0.1 that lives as long as the seed
(`receiver.py`).
"""

import logging
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass

from django.core import mail
from django.test.utils import override_settings
from django_q.conf import Conf

from config import sms
from installments.plans.models import PaymentPlan
from merchants import demo as accounts
from merchants import selectors as merchant_selectors
from merchants import services as merchant_services
from payments.gateway.processors import get_processor

from .month import Month
from .people import Shopper, plan_open
from .receiver import LocalReceiver


@dataclass
class Seeded:
    merchant: object
    password: str | None  # the demo merchant's, when this run created it
    staff_password: str | None  # the staff user's, when this run created it
    played: bool  # the month was seeded by this run
    emails: int = 0  # e-mails kept out of the console
    texts: int = 0
    webhooks: int = 0  # requests the local receiver answered
    test_key: str | None = None  # the demo's test key, when this run made it


def month_needed() -> bool:
    merchant = accounts.demo_merchant()
    return (
        merchant is None or not PaymentPlan.objects.filter(merchant=merchant).exists()
    )


def sandbox_in_use() -> bool:
    # The live side's processor, on purpose: the demo's merchant and cards are
    # live rows, so it is played only where the live side is the sandbox.
    return get_processor().name == "sandbox"


@contextmanager
def _quiet_and_inline(receiver_url_allowed: bool):
    """E-mails and texts kept in memory, tasks inline; the local receiver's
    plain-http loopback address allowed (it is the only endpoint then)."""
    saved_sync = Conf.SYNC
    Conf.SYNC = True
    # Every inline task and pass logs a line at INFO: hundreds for a month.
    # Warnings and errors still show.
    saved_disable = logging.root.manager.disable
    logging.disable(max(logging.INFO, saved_disable))
    if not hasattr(mail, "outbox"):  # the locmem backend's list
        mail.outbox = []
    try:
        with override_settings(
            EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend",
            SMS_URL="locmem://",
            WEBHOOK_ALLOW_PRIVATE_NETWORKS=receiver_url_allowed,
            WEBHOOK_ALLOW_HTTP=receiver_url_allowed,
        ):
            yield
    finally:
        Conf.SYNC = saved_sync
        logging.disable(saved_disable)


def seed(progress: Callable[[int, int], None]) -> Seeded:
    """The demo accounts, and the month when the demo merchant has no plans yet
    (so a second run adds nothing). The month is played on the sandbox only."""
    emails, texts = len(getattr(mail, "outbox", ())), len(sms.outbox)
    with _quiet_and_inline(receiver_url_allowed=True):
        staff_password = accounts.staff_user_ensure()
        created = {}

        def merchant():
            found, created["password"] = accounts.demo_merchant_ensure()
            return found

        played = month_needed() and sandbox_in_use()
        receiver = None
        if played:
            with LocalReceiver() as receiver:
                month = Month(merchant, webhook_url=receiver.url)
                month.play(progress)
            found = month.merchant
            play_test_side(found)
        else:
            found = merchant()
        return Seeded(
            test_key=_test_key_ensure(found),
            merchant=found,
            password=created.get("password"),
            staff_password=staff_password,
            played=played,
            emails=len(mail.outbox) - emails,
            texts=len(sms.outbox) - texts,
            webhooks=receiver.received if receiver else 0,
        )


TEST_KEY_NAME = "Try the API"
# The test side's own story (docs/test-mode.md): what the printed test key
# reads, apart from the live month.
TEST_ORDERS = (
    ("TEST-2001", "Test order: standing fan", 4_500_000, "monthly", 3),
    ("TEST-2002", "Test order: blender", 2_400_000, "biweekly", 2),
)


def play_test_side(merchant) -> None:
    """Two checkouts on the account's test side, by a customer with a test
    card: the demo's test key lists them, the live month never."""
    side = merchant_services.test_side_for(merchant)
    shopper = Shopper("Tobi", "Tester", "+2348000000190").register()
    card = shopper.add_card(livemode=False)
    for order, title, amount, schedule, count in TEST_ORDERS:
        plan_open(
            side,
            shopper,
            card,
            amount=amount,
            title=title,
            order=order,
            schedule=schedule,
            count=count,
        )


def _test_key_ensure(merchant) -> str | None:
    """The demo's test key (docs/test-mode.md): the one the README's examples
    and a first try of the API use, made once; its plaintext exists only in
    the run that made it (None on the next ones)."""
    side = merchant_selectors.test_side_of(merchant)
    if side is not None and merchant_selectors.live_api_key_of(side) is not None:
        return None
    _, plaintext = merchant_services.api_key_rotate(
        merchant=merchant, name=TEST_KEY_NAME, mode="test"
    )
    return plaintext


def summary(merchant) -> str:
    """One line on what the demo merchant has, for the seed's output."""
    from collections import Counter

    from installments.plans.models import Installment
    from installments.refunds.models import Refund
    from payments.payouts.models import Payout
    from webhooks.models import DeliveryAttempt

    statuses = Counter(
        PaymentPlan.objects.filter(merchant=merchant).values_list("status", flat=True)
    )
    plans = ", ".join(f"{count} {status}" for status, count in sorted(statuses.items()))
    collected = Installment.objects.filter(
        plan__merchant=merchant, status=Installment.Status.PAID
    ).count()
    refunds = Refund.objects.filter(merchant=merchant).count()
    payouts = Payout.objects.filter(merchant=merchant).count()
    attempts = DeliveryAttempt.objects.filter(merchant=merchant).count()
    return (
        f"{sum(statuses.values())} plans ({plans}), {collected} installments "
        f"collected, {refunds} refunds, {payouts} payouts, {attempts} webhook "
        "delivery attempts"
    )
