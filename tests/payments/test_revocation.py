"""Revocations (endpoint 25, the nightly poll, failed charges) and the shared
inbound verifier: HMAC-SHA512 first, then the raw request stored, handled once."""

import hashlib
import hmac
import json
import threading

import pytest
from django.db import connection
from rest_framework.test import APIClient

from config.schedules import declared
from payments.gateway.processors import get_processor
from payments.methods import services
from payments.methods.hooks import (
    register_revocation_handler,
    unregister_revocation_handler,
)
from payments.methods.selectors import (
    payment_methods_chargeable,
    revoked_payment_method_count,
)
from payments.methods.tasks import poll_revoked_mandates
from payments.models import InboundRequest, PaymentMethod, ProcessorEvent

from ..factories import CustomerFactory
from .conftest import add_bank, add_card, postgres_only, sign_in, signed_post

pytestmark = pytest.mark.django_db

URL = "/api/v1/webhooks/payment-gateway"


def code_of(method: dict) -> str:
    return PaymentMethod.objects.get(public_id=method["id"]).authorization_code


def revocation(method: dict, event="mandate.cancelled") -> dict:
    return {
        "event": event,
        "data": {
            "authorization_code": code_of(method),
            "customer": {"email": "alice@mail.example.com"},
        },
    }


@pytest.mark.parametrize(
    "event",
    [
        "authorization.revoked",
        "mandate.cancelled",
        "direct_debit.authorization.deactivated",
    ],
)
def test_a_revocation_deactivates_the_method_and_recomputes_the_score(
    alice, revocations, event
):
    bank = add_bank(alice)

    response = signed_post(APIClient(), URL, revocation(bank, event))

    assert response.status_code == 200
    assert response.json() == {"ok": True, "message": "handled"}
    listed = alice.methods()
    assert [(m["id"], m["is_active"], m["is_default"]) for m in listed] == [
        (bank["id"], False, False)
    ]
    assert payment_methods_chargeable(alice.customer) == []
    [seen] = revocations
    assert (seen.customer_id, seen.payment_method_id) == (alice.id, bank["id"])
    assert (seen.event, seen.source) == (event, "webhook")


def test_revoking_the_default_chooses_a_new_default(alice, revocations):
    card = add_card(alice)
    bank = add_bank(alice, is_default=True)

    signed_post(APIClient(), URL, revocation(bank))

    assert [m["id"] for m in alice.methods() if m["is_default"]] == [card["id"]]
    set_default = alice.put(f"/api/v1/payment-methods/{bank['id']}/default")
    assert set_default.status_code == 409
    assert set_default.json()["error"]["code"] == "payment_method_inactive"


def test_the_nested_authorization_shape_is_understood(alice):
    card = add_card(alice)

    signed_post(
        APIClient(),
        URL,
        {
            "event": "authorization.revoked",
            "data": {"authorization": {"authorization_code": code_of(card)}},
        },
    )

    assert alice.methods()[0]["is_active"] is False


def test_the_raw_request_is_stored_with_its_outcome(alice):
    bank = add_bank(alice)
    body = json.dumps(revocation(bank)).encode()

    signed_post(APIClient(), URL, body)

    stored = InboundRequest.objects.get()
    assert bytes(stored.body) == body
    assert stored.endpoint == InboundRequest.Endpoint.PAYMENT_GATEWAY
    assert stored.headers["X-Paystack-Signature"]
    assert stored.signature_valid is True
    assert stored.event == "mandate.cancelled"
    assert stored.processed_at is not None
    assert stored.error == ""


@pytest.mark.parametrize(
    "signature",
    [None, "", "0" * 128, "not hex at all", "é"],
    ids=["missing", "empty", "wrong", "garbage", "non-ascii"],
)
def test_a_bad_or_missing_signature_is_401_and_leaves_a_final_record_without_body(
    alice, signature
):
    bank = add_bank(alice)
    body = json.dumps(revocation(bank)).encode()

    response = signed_post(APIClient(), URL, body, signature=signature)

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_signature"
    assert alice.methods()[0]["is_active"] is True
    stored = InboundRequest.objects.get()
    assert stored.signature_valid is False
    assert stored.error == "missing or invalid signature"
    assert bytes(stored.body) == b""
    assert stored.body_size == len(body)
    # Final (nothing will ever handle it), so the purge can remove it.
    assert stored.outcome == "refused: missing or invalid signature"
    assert stored.processed_at is not None


def test_the_signature_is_hmac_sha512_of_the_raw_body_with_the_secret(alice, settings):
    settings.PAYSTACK_SECRET_KEY = "sk_live_rotated"
    bank = add_bank(alice)
    body = json.dumps(revocation(bank)).encode()
    good = hmac.new(b"sk_live_rotated", body, hashlib.sha512).hexdigest()
    old_key = hmac.new(b"sk_test_sandbox", body, hashlib.sha512).hexdigest()

    assert signed_post(APIClient(), URL, body, signature=old_key).status_code == 401
    assert (
        signed_post(APIClient(), URL, body, signature=good.upper()).status_code == 200
    )


def test_a_duplicate_delivery_is_handled_once(alice, revocations):
    bank = add_bank(alice)
    payload = revocation(bank)

    first = signed_post(APIClient(), URL, payload)
    second = signed_post(APIClient(), URL, payload)

    assert first.json()["message"] == "handled"
    assert second.status_code == 200
    assert second.json()["message"] == "duplicate"
    assert len(revocations) == 1
    assert ProcessorEvent.objects.count() == 1
    assert InboundRequest.objects.count() == 2


def test_an_event_this_endpoint_does_not_handle_is_acknowledged_and_ignored(alice):
    bank = add_bank(alice)

    response = signed_post(APIClient(), URL, revocation(bank, "charge.success"))

    assert response.json() == {"ok": True, "message": "ignored"}
    assert alice.methods()[0]["is_active"] is True


def test_an_unknown_authorization_code_changes_nothing(alice):
    add_bank(alice)

    response = signed_post(
        APIClient(),
        URL,
        {"event": "mandate.cancelled", "data": {"authorization_code": "AUTH_unknown"}},
    )

    assert response.status_code == 200
    assert alice.methods()[0]["is_active"] is True


@pytest.mark.parametrize(
    "body",
    [
        b"not json",
        b"[1, 2]",
        b'{"event": "mandate.cancelled", "data": {}}',
        b'{"event": "mandate.cancelled", "data": {"authorization_code": "AU\\u0000"}}',
    ],
    ids=["not-json", "not-an-object", "no-authorization-code", "nul-in-the-code"],
)
def test_a_signed_but_malformed_body_is_400_and_recorded(body):
    response = signed_post(APIClient(), URL, body)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_request"
    assert InboundRequest.objects.get().error.startswith("InvalidRequest")


def test_a_failing_handler_rolls_the_revocation_back_so_a_redelivery_retries(alice):
    bank = add_bank(alice)

    def broken(revoked):
        raise RuntimeError("score service down")

    register_revocation_handler(broken)
    try:
        response = signed_post(APIClient(), URL, revocation(bank))
    finally:
        unregister_revocation_handler(broken)

    assert response.status_code == 500
    assert alice.methods()[0]["is_active"] is True
    assert not ProcessorEvent.objects.exists()
    assert "score service down" in InboundRequest.objects.get().error

    retried = signed_post(APIClient(), URL, revocation(bank))
    assert retried.json()["message"] == "handled"
    assert alice.methods()[0]["is_active"] is False


def test_the_nightly_poll_revokes_what_the_processor_lists_as_revoked(
    alice, revocations
):
    bank = add_bank(alice)
    card = add_card(alice)
    get_processor().revoke_authorization(authorization_code=code_of(bank))

    assert poll_revoked_mandates() == 1
    assert poll_revoked_mandates() == 0

    assert {m["id"]: m["is_active"] for m in alice.methods()} == {
        bank["id"]: False,
        card["id"]: True,
    }
    assert [r.source for r in revocations] == ["poll"]


def test_the_poll_and_the_webhook_share_one_event_identity(alice, revocations):
    bank = add_bank(alice)
    get_processor().revoke_authorization(authorization_code=code_of(bank))

    poll_revoked_mandates()
    late_webhook = signed_post(APIClient(), URL, revocation(bank))

    assert late_webhook.json()["message"] == "duplicate"
    assert len(revocations) == 1


def test_the_poll_is_a_declared_daily_schedule():
    spec = next(s for s in declared() if s.name == "payments-poll-revoked-mandates")

    assert spec.func == "payments.methods.tasks.poll_revoked_mandates"
    assert spec.schedule_type == "D"


def test_a_charge_refused_for_a_dead_authorization_revokes_the_method(
    alice, revocations
):
    card = add_card(alice)
    code = code_of(card)
    sandbox = get_processor()
    sandbox.revoke_authorization(authorization_code=code)
    result = sandbox.charge_authorization(
        email=alice.customer.email,
        amount=10_000,
        authorization_code=code,
        reference="r1",
    )

    assert services.revocation_from_charge_failure(
        authorization_code=code, result=result
    )
    assert alice.methods()[0]["is_active"] is False
    assert [r.source for r in revocations] == ["charge_failure"]
    assert revoked_payment_method_count(alice.customer, since=card_created(card)) == 1


def card_created(card):
    return PaymentMethod.objects.get(public_id=card["id"]).created_at


def test_an_insufficient_funds_failure_does_not_revoke(alice, revocations):
    card = add_card(alice, "4084080000000409")
    code = code_of(card)
    result = get_processor().charge_authorization(
        email=alice.customer.email,
        amount=10_000,
        authorization_code=code,
        reference="r2",
    )

    assert not services.revocation_from_charge_failure(
        authorization_code=code, result=result
    )
    assert alice.methods()[0]["is_active"] is True
    assert revocations == []


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_duplicate_deliveries_are_handled_once():
    who = sign_in(CustomerFactory())
    bank = add_bank(who)
    payload = revocation(bank)
    seen = []
    register_revocation_handler(seen.append)
    barrier = threading.Barrier(6)
    replies = []

    def deliver():
        barrier.wait()
        try:
            replies.append(signed_post(APIClient(), URL, payload).json()["message"])
        finally:
            connection.close()

    threads = [threading.Thread(target=deliver) for _ in range(6)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        unregister_revocation_handler(seen.append)

    assert sorted(replies) == ["duplicate"] * 5 + ["handled"]
    assert len(seen) == 1
    assert ProcessorEvent.objects.count() == 1
