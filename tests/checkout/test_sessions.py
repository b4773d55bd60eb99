"""`POST /api/v1/checkout/sessions` (endpoint 2) and its idempotency rules."""

import re
from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from checkout import selectors
from checkout.models import CheckoutSession, IdempotencyRecord
from merchants.models import Merchant

from ..conftest import bearer, customer_jwt, merchant_jwt
from .conftest import SESSIONS_URL, key_header, session_body

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def frozen():
    with time_machine.travel(NOW, tick=False) as traveller:
        yield traveller


def token_of(response) -> str:
    return response.json()["data"]["session_token"]


def test_creates_a_30_minute_session_with_an_unguessable_token(
    create_session, merchant_with_key, frozen
):
    response = create_session(merchant_with_key)

    assert response.status_code == 201
    body = response.json()
    token = body["data"]["session_token"]
    assert body == {
        "ok": True,
        "data": {
            "session_token": token,
            "expires_at": "2026-03-01T09:30:00.000Z",
            "livemode": True,
        },
    }
    # base62: 22 characters carry at least 128 random bits
    assert re.fullmatch(r"fcs_[0-9A-Za-z]{22,}", token)
    assert "Idempotent-Replayed" not in response
    session = CheckoutSession.objects.get(token=token)
    assert session.merchant == merchant_with_key.merchant
    assert (session.amount, session.currency) == (250_000, "NGN")
    assert session.title == "Samsung Galaxy A55"
    assert session.order_reference == "ORD-1001"
    assert session.customer_email == "ada@mail.example.com"
    assert session.status == "open"
    assert session.expires_at == NOW + timedelta(minutes=30)


def test_without_a_key_every_request_opens_a_new_session(
    create_session, merchant_with_key
):
    tokens = {token_of(create_session(merchant_with_key)) for _ in range(3)}

    assert len(tokens) == 3
    assert IdempotencyRecord.objects.count() == 0


def test_trailing_slash_is_served_too(api, merchant_with_key):
    response = api.post(
        SESSIONS_URL + "/",
        session_body(merchant_with_key.merchant),
        format="json",
        **merchant_with_key.headers,
    )

    assert response.status_code == 201


@pytest.mark.parametrize("email", [None, ""])
def test_customer_email_is_optional(create_session, merchant_with_key, email):
    response = create_session(merchant_with_key, customer_email=email)

    assert response.status_code == 201
    assert CheckoutSession.objects.get().customer_email == ""


def test_customer_email_may_be_left_out(api, merchant_with_key):
    body = session_body(merchant_with_key.merchant)
    del body["customer_email"]

    response = api.post(SESSIONS_URL, body, format="json", **merchant_with_key.headers)

    assert response.status_code == 201


# --- rule 1: Idempotency-Key must be a UUID v4 -------------------------------


@pytest.mark.parametrize(
    "key",
    [
        "not-a-uuid",
        "",
        "123",
        "6ba7b810-9dad-11d1-80b4-00c04fd430c8",  # version 1
        "d7f0e2a4-1b3c-5d4e-8f6a-7b8c9d0e1f2a",  # version 5
        "d7f0e2a4-1b3c-4d4e-cf6a-7b8c9d0e1f2a",  # not the RFC 4122 variant
        "00000000-0000-0000-0000-000000000000",
        "3f1c9e0a5b7d4c2e9a4f8d6b2e1c0a7f",  # no hyphens
        "{3f1c9e0a-5b7d-4c2e-9a4f-8d6b2e1c0a7f}",
        "urn:uuid:3f1c9e0a-5b7d-4c2e-9a4f-8d6b2e1c0a7f",
        "3f1c9e0a-5b7d-4c2e-9a4f-8d6b2e1c0a7f0",
        "3f1c9e0a-5b7d-4c2e-9a4f-8d6b2e1c0a7g",
    ],
)
def test_a_key_that_is_not_a_uuid_v4_is_400_and_creates_nothing(
    api, merchant_with_key, key
):
    response = api.post(
        SESSIONS_URL,
        session_body(merchant_with_key.merchant),
        format="json",
        **merchant_with_key.headers,
        **key_header(key),
    )

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_idempotency_key"
    assert CheckoutSession.objects.count() == 0


def test_uppercase_uuid_v4_is_accepted_as_the_same_key(
    create_session, merchant_with_key, new_key
):
    key = new_key()

    first = create_session(merchant_with_key, key=key)
    second = create_session(merchant_with_key, key=key.upper())

    assert token_of(first) == token_of(second)
    assert second["Idempotent-Replayed"] == "true"


def test_key_format_is_checked_before_the_body(api, merchant_with_key):
    response = api.post(
        SESSIONS_URL, {}, format="json", **merchant_with_key.headers, **key_header("x")
    )

    assert response.json()["error"]["code"] == "invalid_idempotency_key"


def test_missing_credential_is_401_before_the_key_is_looked_at(api, merchant_active):
    response = api.post(
        SESSIONS_URL, session_body(merchant_active), format="json", **key_header("x")
    )

    assert response.status_code == 401


# --- credentials and merchant checks (rules 2 and 3) -----------------------------


def test_invalid_api_key_is_401(api, merchant_active):
    response = api.post(
        SESSIONS_URL,
        session_body(merchant_active),
        format="json",
        **bearer("service_live_sk_not-a-real-key"),
    )

    assert response.status_code == 401


@pytest.mark.parametrize("token_for", [merchant_jwt, customer_jwt])
def test_jwts_are_refused_with_403(api, merchant_active, customer, token_for):
    principal = merchant_active if token_for is merchant_jwt else customer

    response = api.post(
        SESSIONS_URL,
        session_body(merchant_active),
        format="json",
        **bearer(token_for(principal)),
    )

    assert response.status_code == 403


def test_unknown_merchant_id_is_404(create_session, merchant_with_key):
    response = create_session(merchant_with_key, merchant_id="mer_doesnotexist")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "merchant_not_found"


def test_another_merchants_id_is_403(
    create_session, merchant_with_key, other_merchant_with_key
):
    response = create_session(
        merchant_with_key, merchant_id=other_merchant_with_key.merchant.public_id
    )

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "merchant_mismatch"
    assert CheckoutSession.objects.count() == 0


def test_suspended_merchant_is_403(create_session, merchant_with_key):
    Merchant.objects.filter(pk=merchant_with_key.merchant.pk).update(
        status=Merchant.Status.SUSPENDED
    )

    response = create_session(merchant_with_key)

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "merchant_not_active"


def test_merchant_without_api_access_is_403(create_session, merchant_with_key):
    Merchant.objects.filter(pk=merchant_with_key.merchant.pk).update(
        api_access_enabled=False
    )

    response = create_session(merchant_with_key)

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "api_access_disabled"


# --- rules 4 and 5: replays within 24 hours --------------------------------------


def test_repeating_a_key_returns_the_original_answer_and_creates_nothing(
    create_session, merchant_with_key, new_key, frozen
):
    key = new_key()
    first = create_session(merchant_with_key, key=key)
    frozen.shift(timedelta(minutes=10))

    second = create_session(merchant_with_key, key=key)

    assert second.status_code == first.status_code == 201
    assert second.json() == first.json()
    assert second["Idempotent-Replayed"] == "true"
    assert CheckoutSession.objects.count() == 1
    assert IdempotencyRecord.objects.count() == 1


def test_same_key_with_a_different_body_returns_the_original_session(
    create_session, merchant_with_key, new_key
):
    key = new_key()
    first = create_session(merchant_with_key, key=key)

    second = create_session(
        merchant_with_key,
        key=key,
        amount=999_999,
        title="Something else",
        order_reference="ORD-OTHER",
    )

    assert second.status_code == 201
    assert second.json() == first.json()
    assert second["Idempotent-Replayed"] == "true"
    session = CheckoutSession.objects.get()
    assert (session.amount, session.order_reference) == (250_000, "ORD-1001")


def test_same_key_with_an_out_of_range_amount_still_returns_the_original(
    create_session, merchant_with_key, new_key
):
    key = new_key()
    first = create_session(merchant_with_key, key=key)

    second = create_session(merchant_with_key, key=key, amount=5, currency="USD")

    assert second.status_code == 201
    assert token_of(second) == token_of(first)


def test_same_key_from_another_merchant_opens_an_independent_session(
    create_session, merchant_with_key, other_merchant_with_key, new_key
):
    key = new_key()

    mine = create_session(merchant_with_key, key=key)
    theirs = create_session(other_merchant_with_key, key=key)

    assert theirs.status_code == 201
    assert "Idempotent-Replayed" not in theirs
    assert token_of(theirs) != token_of(mine)
    assert CheckoutSession.objects.get(token=token_of(theirs)).merchant == (
        other_merchant_with_key.merchant
    )
    assert IdempotencyRecord.objects.count() == 2


def test_key_is_replayed_until_just_before_24_hours(
    create_session, merchant_with_key, new_key, frozen
):
    key = new_key()
    first = create_session(merchant_with_key, key=key)
    frozen.shift(timedelta(hours=24) - timedelta(seconds=1))

    again = create_session(merchant_with_key, key=key)

    assert again["Idempotent-Replayed"] == "true"
    assert token_of(again) == token_of(first)


def test_key_reused_after_24_hours_creates_a_new_session(
    create_session, merchant_with_key, new_key, frozen
):
    key = new_key()
    first = create_session(merchant_with_key, key=key)
    frozen.shift(timedelta(hours=24))

    later = create_session(merchant_with_key, key=key)
    replay_of_later = create_session(merchant_with_key, key=key)

    assert later.status_code == 201
    assert "Idempotent-Replayed" not in later
    assert token_of(later) != token_of(first)
    assert later.json()["data"]["expires_at"] == "2026-03-02T09:30:00.000Z"
    assert token_of(replay_of_later) == token_of(later)
    assert CheckoutSession.objects.count() == 2
    assert IdempotencyRecord.objects.count() == 1


def test_a_failed_request_does_not_use_up_its_key(
    create_session, merchant_with_key, new_key
):
    key = new_key()

    refused = create_session(merchant_with_key, key=key, amount=5)
    corrected = create_session(merchant_with_key, key=key)

    assert refused.status_code == 400
    assert corrected.status_code == 201
    assert "Idempotent-Replayed" not in corrected
    assert IdempotencyRecord.objects.get().session.token == token_of(corrected)


def test_replay_still_answers_after_the_session_was_paid(
    create_session, merchant_with_key, new_key
):
    key = new_key()
    first = create_session(merchant_with_key, key=key)
    CheckoutSession.objects.update(status=CheckoutSession.Status.COMPLETED)

    again = create_session(merchant_with_key, key=key)

    assert again.status_code == 201
    assert token_of(again) == token_of(first)


def test_replay_needs_the_merchant_to_still_be_active(
    create_session, merchant_with_key, new_key
):
    key = new_key()
    create_session(merchant_with_key, key=key)
    Merchant.objects.filter(pk=merchant_with_key.merchant.pk).update(
        status=Merchant.Status.SUSPENDED
    )

    assert create_session(merchant_with_key, key=key).status_code == 403


def test_a_key_lost_to_a_concurrent_insert_answers_with_the_winners_session(
    create_session, merchant_with_key, new_key, monkeypatch
):
    """Simulates the race on any database: the early look-up misses, the insert
    then hits the unique constraint, and the stored session is returned."""
    key = new_key()
    first = create_session(merchant_with_key, key=key)
    real_lookup = selectors.idempotency_record
    calls = []

    def miss_first_time(**kwargs):
        calls.append(kwargs)
        return None if len(calls) == 1 else real_lookup(**kwargs)

    monkeypatch.setattr(selectors, "idempotency_record", miss_first_time)

    second = create_session(merchant_with_key, key=key, order_reference="ORD-2")

    assert len(calls) == 2
    assert second.status_code == 201
    assert second["Idempotent-Replayed"] == "true"
    assert token_of(second) == token_of(first)
    assert CheckoutSession.objects.count() == 1


# --- order already paid (409) ------------------------------------------------


def test_order_with_a_completed_session_is_409(create_session, merchant_with_key):
    create_session(merchant_with_key)
    CheckoutSession.objects.update(status=CheckoutSession.Status.COMPLETED)

    response = create_session(merchant_with_key)

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "order_already_paid"
    assert CheckoutSession.objects.count() == 1


def test_order_with_only_open_or_expired_sessions_gets_another_session(
    create_session, merchant_with_key, frozen
):
    create_session(merchant_with_key)
    frozen.shift(timedelta(hours=1))

    assert create_session(merchant_with_key).status_code == 201
    assert create_session(merchant_with_key).status_code == 201


def test_same_order_reference_at_another_merchant_is_not_paid(
    create_session, merchant_with_key, other_merchant_with_key
):
    create_session(merchant_with_key)
    CheckoutSession.objects.update(status=CheckoutSession.Status.COMPLETED)

    assert create_session(other_merchant_with_key).status_code == 201


def test_409_stores_no_idempotency_record(create_session, merchant_with_key, new_key):
    create_session(merchant_with_key)
    CheckoutSession.objects.update(status=CheckoutSession.Status.COMPLETED)

    response = create_session(merchant_with_key, key=new_key())

    assert response.status_code == 409
    assert IdempotencyRecord.objects.count() == 0


# --- amount and currency -----------------------------------------------------


@pytest.mark.parametrize("amount", [10_000, 1_000_000_000])
def test_amount_bounds_are_inclusive(create_session, merchant_with_key, amount):
    assert create_session(merchant_with_key, amount=amount).status_code == 201


@pytest.mark.parametrize("amount", [9_999, 0, -10_000, 1_000_000_001, 10**20])
def test_amount_outside_bounds_is_400_amount_out_of_range(
    create_session, merchant_with_key, amount
):
    response = create_session(merchant_with_key, amount=amount)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "amount_out_of_range"


@pytest.mark.parametrize("currency", ["USD", "GHS", "EUR"])
def test_well_formed_currency_other_than_ngn_is_unsupported(
    create_session, merchant_with_key, currency
):
    response = create_session(merchant_with_key, currency=currency)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "unsupported_currency"


@pytest.mark.parametrize("currency", ["ngn", "NG", "NGNN", "", "N1N", 566, None])
def test_malformed_currency_is_a_validation_error(
    create_session, merchant_with_key, currency
):
    response = create_session(merchant_with_key, currency=currency)

    assert response.status_code == 400
    assert "currency" in response.json()["errors"]


# --- bad input never 500 -------------------------------------------------------


@pytest.mark.parametrize(
    "field",
    ["merchant_id", "amount", "currency", "title", "order_reference"],
)
def test_each_required_field_missing_is_400(api, merchant_with_key, field):
    body = session_body(merchant_with_key.merchant)
    del body[field]

    response = api.post(SESSIONS_URL, body, format="json", **merchant_with_key.headers)

    assert response.status_code == 400
    assert field in response.json()["errors"]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("amount", "250000"),
        ("amount", 250000.0),
        ("amount", 2500.5),
        ("amount", True),
        ("amount", None),
        ("amount", [250000]),
        ("merchant_id", 12),
        ("merchant_id", None),
        ("merchant_id", "m" * 41),
        ("merchant_id", "mer_\x00"),
        ("title", ""),
        ("title", "   "),
        ("title", "t" * 201),
        ("title", 5),
        ("title", "line\nbreak"),
        ("order_reference", ""),
        ("order_reference", "r" * 101),
        ("order_reference", {"id": 1}),
        ("order_reference", "tab\there"),
        ("order_reference", "nul\x00byte"),
        ("customer_email", "not-an-email"),
        ("customer_email", 7),
        ("customer_email", "a" * 250 + "@x.ng"),
        ("custmer_email", "ada@mail.example.com"),
    ],
)
def test_wrong_values_and_types_are_400_not_500(
    create_session, merchant_with_key, field, value
):
    response = create_session(merchant_with_key, **{field: value})

    assert response.status_code == 400
    assert field in response.json()["errors"]
    assert CheckoutSession.objects.count() == 0


def test_boundary_lengths_are_accepted(create_session, merchant_with_key):
    response = create_session(
        merchant_with_key, title="t" * 200, order_reference="r" * 100
    )

    assert response.status_code == 201


@pytest.mark.parametrize(
    "raw",
    [b"{not json", b"", b"[]", b'"text"', b"null", b"42", b'{"amount": 1e999}'],
)
def test_body_that_is_not_a_json_object_is_400(api, merchant_with_key, raw):
    response = api.generic(
        "POST",
        SESSIONS_URL,
        raw,
        content_type="application/json",
        **merchant_with_key.headers,
    )

    assert response.status_code == 400
    assert "detail" in response.json()


def test_body_that_is_not_json_is_415(api, merchant_with_key):
    response = api.generic(
        "POST",
        SESSIONS_URL,
        b"amount=1",
        content_type="application/x-www-form-urlencoded",
        **merchant_with_key.headers,
    )

    assert response.status_code == 415


def test_get_on_the_collection_is_405(api, merchant_with_key):
    assert api.get(SESSIONS_URL, **merchant_with_key.headers).status_code == 405


# --- purge schedule ------------------------------------------------------------


def test_purge_deletes_only_records_past_24_hours(
    create_session, merchant_with_key, new_key, frozen
):
    from checkout.tasks import purge_expired_idempotency_records

    old_key, young_key = new_key(), new_key()
    create_session(merchant_with_key, key=old_key)
    frozen.shift(timedelta(hours=20))
    create_session(merchant_with_key, key=young_key, order_reference="ORD-2")
    frozen.shift(timedelta(hours=4))

    assert purge_expired_idempotency_records() == 1

    assert [str(r.key) for r in IdempotencyRecord.objects.all()] == [young_key]
    assert CheckoutSession.objects.count() == 2


def test_purge_is_declared_as_a_schedule():
    from django.core.management import call_command
    from django_q.models import Schedule

    call_command("setup_schedules", verbosity=0)

    schedule = Schedule.objects.get(name="purge-expired-idempotency-records")
    assert schedule.func == "checkout.tasks.purge_expired_idempotency_records"
    assert schedule.schedule_type == Schedule.HOURLY
