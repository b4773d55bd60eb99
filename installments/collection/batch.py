"""What one recording of a batch's outcomes writes, gathered before it is written
(`outcomes.record`, with the partial debits of `partial_outcomes`), and the tally
of what it did."""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime

from merchants.models import Merchant

from ..notifications.outgoing import Outgoing
from ..plans.models import Installment, PaymentPlan


@dataclass
class Tally:
    paid: int = 0
    failed: int = 0  # failed attempts, including those that defaulted or wait
    defaulted: int = 0
    waiting: int = 0  # action required: waiting for the customer's new method
    completed: int = 0  # plans
    released: int = 0  # plans whose goods were released
    partial: int = 0  # failed attempts whose partial debit collected part
    skipped: int = 0  # settled by someone else meanwhile
    broken: int = 0  # could not be recorded: left in flight

    def add(self, other: "Tally") -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class Batch:
    """What one recording writes, gathered before it is written."""

    now: datetime
    pass_date: date
    rows: dict[int, Installment]
    plans: dict[int, PaymentPlan]
    merchants: dict[int, Merchant]
    events: dict[int, list[tuple[str, dict]]] = field(
        default_factory=lambda: defaultdict(list)
    )
    # The messages the batch's outcomes tell (to customers, and merchants on
    # a default), recorded in its transaction and sent after its commit.
    messages: list[Outgoing] = field(default_factory=list)
    # Installments (pks) whose customer is asked to add a payment method.
    notices: list[int] = field(default_factory=list)
    tally: Tally = field(default_factory=Tally)
