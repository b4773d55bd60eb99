"""The sandbox's disputes pass, and its resolve call (DESIGN section 19).

A charge of the sandbox's disputed card is disputed a minute after it
succeeded; an unanswered dispute is lost past its deadline; each opening and
each resolution is announced as Paystack's webhook would (`charge.dispute.create`,
`charge.dispute.resolve`): the event goes the way a Paystack event goes,
re-read with `GET /dispute/:id` and handled once by the handler registered for
it (the plans' disputes). A dispute is marked announced once its event was
handled; one that could not be is sent again by the next pass.
"""

import logging

from django.utils import timezone

from ..processors import sandbox_processor
from .processor_events import Source, processor_event_handle
from .refund_events import SANDBOX_ANNOUNCE_WITHIN

logger = logging.getLogger("payments.events")


def _announce(processor, what: str, dispute_id: str) -> str:
    """`charge.dispute.<what>` of the dispute handled, then marked announced;
    raises (and leaves it unannounced) when it could not be handled."""
    outcome = processor_event_handle(
        payload={"event": f"charge.dispute.{what}", "data": {"id": dispute_id}},
        source=Source.SANDBOX,
    )
    processor.dispute_announced(dispute_id=dispute_id, what=what)
    return outcome


def sandbox_disputes_run() -> int:
    """The sandbox's disputes pass (every minute): disputed-card charges due
    are disputed, unanswered disputes past their deadline are lost, and each
    opening and resolution not announced yet is. Returns how many events were
    handled."""
    # The sandbox's disputes: a sandbox deployment's, and the test side's on
    # every deployment.
    processor = sandbox_processor()
    for reference in processor.disputes_due():
        processor.dispute_open(transaction_reference=reference)
    processor.disputes_lapse()
    announced = 0
    since = timezone.now() - SANDBOX_ANNOUNCE_WITHIN
    for what, dispute_id in processor.disputes_unannounced(since=since):
        try:
            _announce(processor, what, dispute_id)
        except Exception as error:
            # As Paystack retries a webhook: the next pass sends it again.
            logger.warning(
                "Sandbox dispute %s (%s) not handled: %s", dispute_id, what, error
            )
            continue
        announced += 1
    return announced


def sandbox_dispute_decide(*, dispute_id: str, won: bool) -> str:
    """The sandbox's resolve call: the bank decides the dispute (for the
    merchant when `won`), and `charge.dispute.resolve` is handled at once, as
    the pass would send it. Returns how the event was handled. Always the
    sandbox's: only its endpoint calls it, for a sandbox deployment's dispute
    or test data's (DESIGN section 21)."""
    processor = sandbox_processor()
    processor.dispute_decide(dispute_id=dispute_id, won=won)
    return _announce(processor, "resolve", dispute_id)
