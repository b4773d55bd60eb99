"""The dashboard is one site across the apps (DESIGN §1, §12): every page of
webhooks, checkout, installments and payments needs a signed-in merchant, is
never cached, and every form refuses a POST without the CSRF token."""

import re

import pytest
from django.test import Client

from checkout.services import payment_link_create
from webhooks.services import emit_event

from ..dashboards import sign_in
from ..factories import PASSWORD, MerchantFactory

pytestmark = pytest.mark.django_db

PAGES = [
    "/dashboard/webhooks/",
    "/dashboard/webhooks/events/evt_x/",
    "/dashboard/webhooks/deliveries/dlv_x/",
    "/dashboard/links/",
    "/dashboard/links/pl_x/",
    "/dashboard/plans/",
    "/dashboard/plans/plan_x/",
    "/dashboard/wallet/",
    "/dashboard/wallet/payout-account/",
    # The CSV downloads (DESIGN section 16).
    "/dashboard/plans.csv",
    "/dashboard/installments.csv",
    "/dashboard/wallet/transactions.csv",
    "/dashboard/wallet/refunds.csv",
    "/dashboard/wallet/payouts.csv",
    "/dashboard/wallet/payouts/po_x/settlement.csv",
    "/dashboard/webhooks/deliveries.csv",
]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_sends_anonymous_visitors_to_sign_in(client, path):
    response = client.get(path)

    assert response.status_code == 302
    assert response["Location"].startswith("/dashboard/login/?next=")


@pytest.mark.parametrize(
    "path",
    [
        "/dashboard/webhooks/",
        "/dashboard/links/",
        "/dashboard/plans/",
        "/dashboard/wallet/",
        "/dashboard/wallet/payout-account/",
    ],
)
def test_every_page_is_never_cached_and_marks_its_section_current(
    merchant_active, path
):
    response = sign_in(Client(), merchant_active).get(path)

    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    section = "/".join(path.split("/")[:3]) + "/"
    assert f'href="{section}" class="nav-link is-current"' in response.content.decode()


def csrf_client(merchant) -> Client:
    """Signed in through the form, by a client that enforces CSRF like a browser."""
    client = Client(enforce_csrf_checks=True)
    page = client.get("/dashboard/login/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    client.post(
        "/dashboard/login/",
        {"email": merchant.email, "password": PASSWORD, "csrfmiddlewaretoken": token},
    )
    assert client.get("/dashboard/").status_code == 200
    return client


def forms_of(merchant) -> list[tuple[str, dict]]:
    event = emit_event(
        merchant=merchant, event_type="goods.release", data={"resourceType": "x"}
    )
    link = payment_link_create(
        merchant=merchant, title="Chair", amount=4_500_000, currency="NGN"
    )
    return [
        ("/dashboard/webhooks/", {}),
        (f"/dashboard/webhooks/events/{event.public_id}/replay/", {}),
        ("/dashboard/links/", {"title": "Sofa", "amount": "100", "currency": "NGN"}),
        (f"/dashboard/links/{link.public_id}/toggle/", {"is_active": "false"}),
        (
            "/dashboard/wallet/payout-account/",
            {"bank_code": "058", "account_number": "0123456780"},
        ),
    ]


def test_every_form_refuses_a_post_without_the_csrf_token(merchant_active):
    client = csrf_client(merchant_active)

    for path, data in forms_of(merchant_active):
        response = client.post(path, data)
        assert response.status_code == 403, path
        assert b"CSRF" in response.content

    merchant_active.refresh_from_db()
    assert merchant_active.payout_account_number == ""
    assert merchant_active.payment_links.get().is_active
    assert merchant_active.payment_links.count() == 1


def test_every_form_works_with_the_token_its_page_renders(merchant_active):
    client = csrf_client(merchant_active)
    pages = {
        "/dashboard/webhooks/": "/dashboard/webhooks/",
        "/dashboard/links/": "/dashboard/links/",
        "/dashboard/wallet/payout-account/": "/dashboard/wallet/payout-account/",
    }

    for path, data in forms_of(merchant_active):
        rendered = client.get(pages.get(path, "/dashboard/webhooks/")).content.decode()
        token = re.search(
            r'name="csrfmiddlewaretoken" value="([^"]+)"', rendered
        ).group(1)
        response = client.post(path, {**data, "csrfmiddlewaretoken": token})
        assert response.status_code in (200, 303, 400), (path, response.status_code)

    merchant_active.refresh_from_db()
    assert merchant_active.payout_account_name == "SANDBOX ACCOUNT 6780"
    assert merchant_active.payment_links.count() == 2  # one made, one posted


def test_another_merchant_signed_in_in_the_same_browser_sees_only_their_own(db):
    first, second = MerchantFactory(), MerchantFactory()
    payment_link_create(merchant=first, title="Chair", amount=4_500_000, currency="NGN")
    client = sign_in(Client(), first)
    assert "Chair" in client.get("/dashboard/links/").content.decode()

    sign_in(client, second)

    assert "Chair" not in client.get("/dashboard/links/").content.decode()
