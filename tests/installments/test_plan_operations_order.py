"""Who may act comes before what they sent (issue 25 item 7): every operation
on a plan answers the documented 403 (a suspended merchant) or 404 (a plan that
is not the caller's) whatever the body, as for a valid one; only the plan's own
active merchant or customer learns that a body is malformed (400)."""

import pytest
from rest_framework.test import APIClient

from merchants.models import Merchant
from payments.models import Customer

from ..conftest import customer_jwt, make_merchant_with_key
from .conftest import installments_of, make_active_plan

pytestmark = pytest.mark.django_db

# (path after the plan's, by the merchant's API key)
MERCHANT_OPERATIONS = [
    "sandbox/advance",
    "sandbox/collect-next",
    "installments/{installment}/reschedule",
    "refunds",
    "cancel",
]
# (path after the plan's, by the customer's JWT)
CUSTOMER_OPERATIONS = ["pay", "installments/{installment}/reschedule"]
BODIES = [{}, {"to": "2026-1-5", "due_date": "x", "amount": "lots"}]


def url(setup, operation: str) -> str:
    path = operation.format(installment=installments_of(setup.plan)[0].public_id)
    if path.startswith("sandbox/"):
        name = path.removeprefix("sandbox/")
        return f"/api/v1/sandbox/payment-plans/{setup.plan.public_id}/{name}"
    return f"{setup.url}/{path}"


def post(setup, operation: str, body: dict, headers: dict):
    return APIClient().post(url(setup, operation), body, format="json", **headers)


@pytest.fixture
def setup(db):
    return make_active_plan()


@pytest.mark.parametrize("body", BODIES, ids=["empty", "malformed"])
@pytest.mark.parametrize("operation", MERCHANT_OPERATIONS)
def test_a_suspended_merchant_hears_403_before_anything_about_the_body(
    setup, operation, body
):
    Merchant.objects.filter(pk=setup.owner.merchant.pk).update(
        status=Merchant.Status.SUSPENDED
    )

    response = post(setup, operation, body, setup.owner.headers)

    assert response.status_code == 403, response.content
    assert response.json()["error"]["code"] == "merchant_not_active"


@pytest.mark.parametrize("body", BODIES, ids=["empty", "malformed"])
@pytest.mark.parametrize("operation", MERCHANT_OPERATIONS)
def test_another_merchants_plan_is_404_before_anything_about_the_body(
    setup, operation, body
):
    stranger = make_merchant_with_key()

    response = post(setup, operation, body, stranger.headers)

    assert response.status_code == 404, response.content
    assert response.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize("body", BODIES, ids=["empty", "malformed"])
@pytest.mark.parametrize("operation", CUSTOMER_OPERATIONS)
def test_another_customers_plan_is_404_before_anything_about_the_body(
    setup, operation, body
):
    stranger = Customer.objects.create(
        email="eve@mail.example.com", first_name="Eve", last_name="X"
    )
    headers = {"HTTP_AUTHORIZATION": f"Bearer {customer_jwt(stranger)}"}

    response = post(setup, operation, body, headers)

    assert response.status_code == 404, response.content
    assert response.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize(
    "operation", [op for op in MERCHANT_OPERATIONS if op != "sandbox/collect-next"]
)
def test_the_plans_own_merchant_hears_what_is_wrong_with_the_body(setup, operation):
    response = post(setup, operation, BODIES[1], setup.owner.headers)

    assert response.status_code == 400, response.content
    assert response.json()["detail"].startswith("Invalid input.")
