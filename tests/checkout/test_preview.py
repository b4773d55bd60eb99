"""`POST /api/v1/checkout/preview` (endpoint 3): plan terms, computing only."""

from datetime import UTC, datetime

import pytest
import time_machine

from checkout.models import CheckoutSession, IdempotencyRecord
from merchants.models import Merchant
from payments.models import Customer

from ..conftest import bearer, customer_jwt, make_merchant_with_key, merchant_jwt
from ..factories import CustomerFactory
from .conftest import PREVIEW_URL

pytestmark = pytest.mark.django_db

# 09:00 Lagos time on 2026-01-31
JAN_31 = datetime(2026, 1, 31, 8, 0, tzinfo=UTC)

ISSUE_EXAMPLE = {
    "schedule_type": "monthly",
    "installment_count": 3,
    "deposit_amount": 30_001,
    "installment_amounts": [23_334, 23_333, 23_333],
    # 28 February 2026 (the month-end clamp of the 31st) is a Saturday: due the
    # next working day, Monday 2 March (DESIGN section 15).
    "due_dates": ["2026-03-02", "2026-03-31", "2026-04-30"],
    "total_amount": 100_001,
}


def preview_body(merchant, **overrides) -> dict:
    return {
        "merchant_id": merchant.public_id,
        "amount": 100_001,
        "schedule_type": "monthly",
        "installment_count": 3,
    } | overrides


def as_customer(customer):
    return lambda: bearer(customer_jwt(customer))


@pytest.fixture
def preview(api):
    def post(headers, body, at=JAN_31):
        with time_machine.travel(at, tick=False):
            # JWTs are issued inside the travel: one from the real clock would not
            # be valid yet on the travelled date.
            if callable(headers):
                headers = headers()
            return api.post(PREVIEW_URL, body, format="json", **headers)

    return post


def test_api_key_previews_the_issue_example_for_a_new_customer(
    preview, merchant_with_key
):
    response = preview(
        merchant_with_key.headers, preview_body(merchant_with_key.merchant)
    )

    assert response.status_code == 200
    assert response.json() == {"ok": True, "data": ISSUE_EXAMPLE}


def test_preview_creates_nothing(preview, merchant_with_key, customer):
    before = (Customer.objects.count(), Merchant.objects.count())

    preview(
        merchant_with_key.headers,
        preview_body(merchant_with_key.merchant, customer_id=customer.public_id),
    )

    assert CheckoutSession.objects.count() == 0
    assert IdempotencyRecord.objects.count() == 0
    assert (Customer.objects.count(), Merchant.objects.count()) == before
    customer.refresh_from_db()
    assert customer.score == 500


def test_checkout_date_is_the_lagos_date(preview, merchant_with_key):
    # 23:30 UTC on Jan 30 is already 00:30 on Jan 31 in Lagos.
    response = preview(
        merchant_with_key.headers,
        preview_body(merchant_with_key.merchant),
        at=datetime(2026, 1, 30, 23, 30, tzinfo=UTC),
    )

    assert response.json()["data"]["due_dates"] == ISSUE_EXAMPLE["due_dates"]


def test_api_key_uses_a_known_customers_stored_score(preview, merchant_with_key):
    tier_a = CustomerFactory(score=820)

    response = preview(
        merchant_with_key.headers,
        preview_body(
            merchant_with_key.merchant,
            customer_id=tier_a.public_id,
            amount=100_000,
        ),
    )

    data = response.json()["data"]
    assert data["deposit_amount"] == 20_000
    assert data["installment_amounts"] == [26_667, 26_667, 26_666]


@pytest.mark.parametrize("customer_id", ["cus_unknown", None])
def test_api_key_with_an_unknown_or_no_customer_previews_a_new_customer(
    preview, merchant_with_key, customer_id
):
    response = preview(
        merchant_with_key.headers,
        preview_body(merchant_with_key.merchant, customer_id=customer_id),
    )

    assert response.json()["data"]["deposit_amount"] == 30_001


def test_api_key_preview_for_a_customer_below_300_is_422(preview, merchant_with_key):
    risky = CustomerFactory(score=299)

    response = preview(
        merchant_with_key.headers,
        preview_body(merchant_with_key.merchant, customer_id=risky.public_id),
    )

    assert response.status_code == 422
    assert response.json()["error"]["code"] == "customer_not_eligible"


def test_api_key_for_another_merchants_id_is_403(
    preview, merchant_with_key, other_merchant_with_key
):
    response = preview(
        merchant_with_key.headers, preview_body(other_merchant_with_key.merchant)
    )

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "merchant_mismatch"


def test_unknown_merchant_is_404_for_either_credential(
    preview, merchant_with_key, customer
):
    body = preview_body(merchant_with_key.merchant, merchant_id="mer_nope")

    for headers in (merchant_with_key.headers, as_customer(customer)):
        response = preview(headers, body)
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "merchant_not_found"


def test_api_key_of_a_suspended_merchant_is_403(preview, merchant_with_key):
    Merchant.objects.filter(pk=merchant_with_key.merchant.pk).update(
        status=Merchant.Status.SUSPENDED
    )

    response = preview(
        merchant_with_key.headers, preview_body(merchant_with_key.merchant)
    )

    assert response.json()["error"]["code"] == "merchant_not_active"


def test_customer_jwt_previews_with_the_customers_own_score(preview, merchant_with_key):
    tier_c = CustomerFactory(score=450)

    response = preview(
        as_customer(tier_c),
        preview_body(merchant_with_key.merchant, customer_id=tier_c.public_id),
    )

    assert response.status_code == 200
    assert response.json()["data"]["deposit_amount"] == 40_001


def test_customer_jwt_without_customer_id_means_the_customer_themselves(
    preview, merchant_with_key
):
    tier_a = CustomerFactory(score=700)

    response = preview(as_customer(tier_a), preview_body(merchant_with_key.merchant))

    assert response.json()["data"]["deposit_amount"] == 20_001


@pytest.mark.parametrize("customer_id", ["other", "cus_unknown"])
def test_customer_jwt_with_another_customer_id_is_404(
    preview, merchant_with_key, customer, customer_id
):
    other = CustomerFactory()
    if customer_id == "other":
        customer_id = other.public_id

    response = preview(
        as_customer(customer),
        preview_body(merchant_with_key.merchant, customer_id=customer_id),
    )

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize(
    ("status", "api_access"),
    [(Merchant.Status.PENDING, False), (Merchant.Status.SUSPENDED, True)],
)
def test_customer_jwt_at_an_inactive_merchant_is_403(
    preview, customer, status, api_access
):
    merchant = make_merchant_with_key().merchant
    Merchant.objects.filter(pk=merchant.pk).update(
        status=status, api_access_enabled=api_access
    )

    response = preview(as_customer(customer), preview_body(merchant))

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "merchant_not_active"


def test_customer_jwt_works_at_an_active_merchant_without_api_access(
    preview, merchant_approved, customer
):
    response = preview(as_customer(customer), preview_body(merchant_approved))

    assert response.status_code == 200


def test_merchant_jwt_is_403_and_no_credential_is_401(preview, merchant_with_key):
    body = preview_body(merchant_with_key.merchant)

    assert (
        preview(
            lambda: bearer(merchant_jwt(merchant_with_key.merchant)), body
        ).status_code
        == 403
    )
    assert preview({}, body).status_code == 401


# --- merchant plan configuration ------------------------------------------------


def test_merchant_configuration_shapes_the_plan(preview):
    owner = make_merchant_with_key(
        allowed_schedule_types=["monthly", "weekly"],
        min_installments=2,
        max_installments=4,
        min_deposit_percent=50,
    )

    response = preview(
        owner.headers,
        preview_body(
            owner.merchant,
            amount=100_000,
            schedule_type="weekly",
            installment_count=4,
        ),
    )

    assert response.json()["data"] == {
        "schedule_type": "weekly",
        "installment_count": 4,
        "deposit_amount": 50_000,
        "installment_amounts": [12_500] * 4,
        # Saturdays 7, 14, 21 and 28 February move to the Mondays after them.
        "due_dates": ["2026-02-09", "2026-02-16", "2026-02-23", "2026-03-02"],
        "total_amount": 100_000,
    }


@pytest.mark.parametrize("schedule_type", ["weekly", "biweekly", "yearly", "MONTHLY"])
def test_schedule_the_merchant_does_not_offer_is_422(
    preview, merchant_with_key, schedule_type
):
    response = preview(
        merchant_with_key.headers,
        preview_body(merchant_with_key.merchant, schedule_type=schedule_type),
    )

    assert response.status_code == 422
    assert response.json()["error"]["code"] == "schedule_type_not_allowed"


@pytest.mark.parametrize("count", [0, -3, 7, 12, 10**12])
def test_count_outside_the_bounds_is_422(preview, merchant_with_key, count):
    response = preview(
        merchant_with_key.headers,
        preview_body(merchant_with_key.merchant, installment_count=count),
    )

    assert response.status_code == 422
    assert response.json()["error"]["code"] == "invalid_installment_count"
    assert "between 1 and 6" in response.json()["error"]["message"]


@pytest.mark.parametrize("amount", [9_999, 1_000_000_001])
def test_amount_outside_the_bounds_is_400(preview, merchant_with_key, amount):
    response = preview(
        merchant_with_key.headers,
        preview_body(merchant_with_key.merchant, amount=amount),
    )

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "amount_out_of_range"


# --- bad input never 500 --------------------------------------------------------


@pytest.mark.parametrize(
    "field", ["merchant_id", "amount", "schedule_type", "installment_count"]
)
def test_each_required_field_missing_is_400(preview, merchant_with_key, field):
    body = preview_body(merchant_with_key.merchant)
    del body[field]

    response = preview(merchant_with_key.headers, body)

    assert response.status_code == 400
    assert field in response.json()["errors"]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("amount", "100001"),
        ("amount", 100_001.0),
        ("amount", False),
        ("installment_count", "3"),
        ("installment_count", 3.5),
        ("installment_count", None),
        ("schedule_type", 1),
        ("schedule_type", ""),
        ("schedule_type", ["monthly"]),
        ("customer_id", 5),
        ("customer_id", "cus_\x00"),
        ("merchant_id", None),
        ("currency", "NGN"),
    ],
)
def test_wrong_types_and_unknown_fields_are_400(
    preview, merchant_with_key, field, value
):
    response = preview(
        merchant_with_key.headers,
        preview_body(merchant_with_key.merchant, **{field: value}),
    )

    assert response.status_code == 400
    assert field in response.json()["errors"]


@pytest.mark.parametrize("raw", [b"{bad", b"[1, 2]", b"", b"true"])
def test_body_that_is_not_a_json_object_is_400(api, merchant_with_key, raw):
    response = api.generic(
        "POST",
        PREVIEW_URL,
        raw,
        content_type="application/json",
        **merchant_with_key.headers,
    )

    assert response.status_code == 400
