"""A month of the demo merchant's business, played day by day through the real
services (DESIGN section 16; docs/operations.md, "The demo data").

The clock is moved back 30 days (time-machine) and forward one day at a time:
each day the day's customers check out (a deposit charged on the sandbox), the
merchant cancels or refunds, and at 11:00 Lagos time the collection engine
collects what is due (`collect_due(on_date=...)`), the sandbox settles its
refunds, receipts and reminders are e-mailed and the webhook deliveries due are
sent, as the schedules would. Every row carries the time it
was made at, and the ledger is what those services posted.

The stories (S = the first day, 30 days ago):

| order | plan | what happens |
|---|---|---|
| DEMO-1001 | weekly x3 | all collected: completed; then a partial refund |
| DEMO-1002 | biweekly x4 | two installments collected, a partial refund: active |
| DEMO-1003 | weekly x3 | the only card has too little money: 4 failures, defaulted |
| DEMO-1004 | monthly x3 | cancelled by the merchant two days later |
| DEMO-1005 | monthly x3 | bought through a payment link: active, nothing due yet |
| DEMO-1006 | monthly x4 | active, nothing due yet |
| DEMO-1007 | biweekly x3 | the first installment failed and is being retried |
| DEMO-1008 | weekly x3 | the customer removed their card: action_required |
| DEMO-1009 | monthly x2 | a recent checkout: active |

Payouts of the whole wallet go out on days S+16 and S+23. Whether DEMO-1007
and DEMO-1008 are still waiting today depends on where weekends and public
holidays fall (due dates are working days).
"""

from collections.abc import Callable
from datetime import date, datetime, time, timedelta

import time_machine
from django.utils import timezone

from checkout.services.links import payment_link_create
from installments.cancellation.services import plan_merchant_cancel
from installments.collection.engine import collect_due
from installments.notifications import tasks as notification_tasks
from installments.refunds.services import refund_create
from merchants import account_settings
from merchants import services as merchant_services
from payments.gateway import tasks as gateway_tasks
from payments.payouts.services.payout_accounts import payout_account_set
from payments.payouts.services.payout_runs import payouts_run
from webhooks.tasks import deliver_due_webhooks

from .people import CARD_INSUFFICIENT_FUNDS, Shopper, plan_open

DAYS = 30
PAYOUT_DAYS = (16, 23)
ACTION_HOUR, ENGINE_HOUR, PAYOUT_HOUR = 9, 11, 12
# A sandbox payout account (GTBank): any 10 digits not ending in 9 is paid.
PAYOUT_BANK, PAYOUT_ACCOUNT = "058", "0123456780"


class Month:
    """The demo merchant's month; `play(progress)` runs it."""

    def __init__(self, merchant: Callable[[], object], *, webhook_url: str):
        # Called on the first day, so an account it creates is a month old.
        self.merchant = merchant
        self.webhook_url = webhook_url
        self.first_day = timezone.localdate() - timedelta(days=DAYS)
        self.plans = {}
        self.shoppers = {}
        self.cards = {}

    def at(self, day: int, hour: int) -> datetime:
        moment = datetime.combine(self.first_day + timedelta(days=day), time(hour))
        return timezone.make_aware(moment)

    def day(self, day: int) -> date:
        return self.first_day + timedelta(days=day)

    def play(self, progress: Callable[[int, int], None]) -> None:
        stories = self.stories()
        with time_machine.travel(self.at(0, ACTION_HOUR - 1), tick=True) as clock:
            self.merchant = self.merchant()
            self.set_up()
            for day in range(DAYS):
                clock.move_to(self.at(day, ACTION_HOUR))
                notification_tasks.send_reminders(self.day(day).isoformat())
                for story in stories.get(day, ()):
                    story()
                clock.move_to(self.at(day, ENGINE_HOUR))
                collect_due(on_date=self.day(day))
                self.settle_and_deliver()
                if day in PAYOUT_DAYS:
                    clock.move_to(self.at(day, PAYOUT_HOUR))
                    payouts_run(merchant_ids=[self.merchant.public_id])
                    self.settle_and_deliver()
                progress(day + 1, DAYS)

    @staticmethod
    def settle_and_deliver() -> None:
        """What the schedules do every few minutes: sandbox refunds settled,
        receipts and requests for a payment method e-mailed (and the messages
        recorded but not sent yet, such as refund receipts), webhooks sent."""
        gateway_tasks.sandbox_refunds_settle()
        notification_tasks.send_collection_receipts()
        notification_tasks.send_action_required_notices()
        notification_tasks.send_due_messages()
        deliver_due_webhooks()

    def set_up(self) -> None:
        """Day one, before the first customer: the payout account, the webhook
        endpoint and its signing secret, an API key, a payment link."""
        self.merchant = payout_account_set(
            merchant=self.merchant, bank_code=PAYOUT_BANK, account_number=PAYOUT_ACCOUNT
        )
        self.merchant = account_settings.merchant_update_settings(
            merchant=self.merchant,
            webhook_url=self.webhook_url,
            allowed_schedule_types=["monthly", "biweekly", "weekly"],
        )
        self.merchant, _ = account_settings.webhook_secret_regenerate(
            merchant=self.merchant
        )
        # The shop's key (its plaintext went to the shop's server, not here);
        # rotated on day 15, so the revoked one is in the key history.
        merchant_services.api_key_rotate(merchant=self.merchant, name="Shop backend")
        self.link = payment_link_create(
            merchant=self.merchant,
            title="Hisense 43-inch Smart TV",
            amount=32_000_000,
            currency="NGN",
            description="Pay in three monthly installments.",
        )

    # -- the stories -----------------------------------------------------------

    def stories(self) -> dict[int, list[Callable[[], None]]]:
        return {
            0: [self.checkout("DEMO-1001", "Chidinma", "Okafor", 18_500_000,
                              "Samsung Galaxy A55", "weekly", 3)],
            1: [self.checkout("DEMO-1002", "Tunde", "Bakare", 45_000_000,
                              "HP EliteBook 840", "biweekly", 4)],
            2: [self.checkout("DEMO-1003", "Emeka", "Nwosu", 9_600_000,
                              "Tecno Camon 30", "weekly", 3)],
            3: [self.card_runs_dry("DEMO-1003")],
            4: [self.checkout("DEMO-1004", "Aisha", "Bello", 27_500_000,
                              "LG Inverter Fridge", "monthly", 3)],
            6: [self.cancel("DEMO-1004", "The customer changed their mind.")],
            8: [self.checkout("DEMO-1005", "Ngozi", "Eze", 0, "", "monthly", 3,
                              through_link=True)],
            11: [self.checkout("DEMO-1006", "Ibrahim", "Musa", 62_000_000,
                               "Apple MacBook Air M3", "monthly", 4)],
            13: [self.checkout("DEMO-1007", "Funke", "Adeyemi", 15_000_000,
                               "Oraimo Power Bank bundle", "biweekly", 3)],
            14: [self.card_runs_dry("DEMO-1007")],
            15: [self.rotate_key],
            19: [self.checkout("DEMO-1008", "Yusuf", "Lawal", 12_000_000,
                               "JBL PartyBox Encore", "weekly", 3)],
            20: [self.refund("DEMO-1002", 5_000_000, "A charger was returned."),
                 self.card_removed("DEMO-1008")],
            24: [self.refund("DEMO-1001", 2_500_000, "The case arrived damaged.")],
            26: [self.checkout("DEMO-1009", "Blessing", "Okon", 8_800_000,
                               "Nintendo Switch Lite", "monthly", 2)],
        }  # fmt: skip

    def checkout(self, order, first, last, amount, title, schedule, count, **how):
        def story() -> None:
            phone = f"+234803{sum(map(ord, first + last)) * 7919 % 10_000_000:07d}"
            shopper = Shopper(first, last, phone).register()
            card = shopper.add_card()
            self.shoppers[order], self.cards[order] = shopper, card
            self.plans[order] = plan_open(
                self.merchant,
                shopper,
                card,
                amount=amount,
                title=title,
                order=order,
                schedule=schedule,
                count=count,
                link=self.link if how.get("through_link") else None,
            )

        return story

    def rotate_key(self) -> None:
        merchant_services.api_key_rotate(merchant=self.merchant, name="Shop backend")

    def card_runs_dry(self, order):
        """The customer's new default card has too little money on it, and the
        card they paid the deposit with is gone."""

        def story() -> None:
            shopper = self.shoppers[order]
            shopper.add_card(CARD_INSUFFICIENT_FUNDS)
            shopper.remove_card(self.cards[order])

        return story

    def card_removed(self, order):
        def story() -> None:
            self.shoppers[order].remove_card(self.cards[order])

        return story

    def cancel(self, order, reason):
        def story() -> None:
            plan_merchant_cancel(plan=self.plans[order], reason=reason)

        return story

    def refund(self, order, amount, reason):
        def story() -> None:
            refund_create(plan=self.plans[order], amount=amount, reason=reason)

        return story
