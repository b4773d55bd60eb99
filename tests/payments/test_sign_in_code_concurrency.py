"""One-time codes tried from many requests at once, on PostgreSQL with real
threads: the right code signs in once, and wrong tries at once count one by
one, so no burst of guesses gets more than 5 of them."""

import pytest
from django.conf import settings

from payments.customers.codes import sign_in_code_check, sign_in_code_issue
from payments.customers.models import SignInCode

from ..concurrency import run_concurrently
from ..factories import CustomerFactory

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        not settings.IS_POSTGRES,
        reason="SQLite serialises every write transaction; run with "
        "DATABASE_URL=postgres://...",
    ),
    pytest.mark.django_db(transaction=True),
]

THREADS = 12


def test_the_right_code_tried_at_once_works_once():
    customer = CustomerFactory()
    _, code = sign_in_code_issue(customer=customer)

    results = run_concurrently(
        lambda: sign_in_code_check(customer=customer, code=code), THREADS
    )

    assert sorted(results, key=str) == [False] * (THREADS - 1) + [True]


def test_a_burst_of_wrong_tries_counts_each_and_stops_at_five():
    customer = CustomerFactory()
    row, code = sign_in_code_issue(customer=customer)
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"

    results = run_concurrently(
        lambda: sign_in_code_check(customer=customer, code=wrong), THREADS
    )

    assert results == [False] * THREADS
    row.refresh_from_db()
    assert row.wrong_tries == SignInCode.MAX_WRONG_TRIES
    assert sign_in_code_check(customer=customer, code=code) is False
