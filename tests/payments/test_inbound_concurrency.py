"""The bound on refused-request records holds when requests arrive together
(real threads on PostgreSQL)."""

import pytest
import time_machine
from rest_framework.test import APIClient

from payments.models import InboundRequest

from ..concurrency import run_concurrently
from .conftest import postgres_only, signed_post
from .inbound import MINUTE, REFUSED_RECORDS_PER_MINUTE


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_refused_requests_sent_together_leave_at_most_the_minutes_records():
    def refused() -> int:
        return signed_post(
            APIClient(), "/api/v1/webhooks/paystack", b"{}", signature="00" * 64
        ).status_code

    with time_machine.travel(MINUTE, tick=False):
        answers = run_concurrently(refused, 12)

    assert answers == [401] * 12
    assert InboundRequest.objects.count() == REFUSED_RECORDS_PER_MINUTE
