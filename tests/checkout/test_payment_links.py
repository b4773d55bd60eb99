"""Payment links, endpoints 4-6: camelCase links, list with `total`, toggle."""

import re

import pytest

from checkout.models import PaymentLink

from ..conftest import bearer, customer_jwt, merchant_jwt

LINKS_URL = "/api/v1/payment-links"


def link_body(merchant, **overrides) -> dict:
    return {
        "merchant_id": merchant.public_id,
        "title": "Office chair",
        "amount": 4_500_000,
        "currency": "NGN",
        "description": "Ergonomic, black",
        "redirect_url": "https://shop.example.com/thanks",
    } | overrides


@pytest.fixture
def create_link(api):
    def create(owner, **overrides):
        return api.post(
            LINKS_URL,
            link_body(owner.merchant, **overrides),
            format="json",
            **owner.headers,
        )

    return create


def test_creating_a_link_answers_201_with_the_camel_case_link(
    create_link, merchant_with_key, settings
):
    settings.CONSUMER_URL = "https://pay.example.ng"

    response = create_link(merchant_with_key)

    assert response.status_code == 201, response.content
    link = response.json()["data"]
    assert re.fullmatch(r"pl_[0-9A-Za-z]{22}", link["id"])
    assert re.fullmatch(r"[0-9A-Za-z]{11}", link["slug"])
    assert link == {
        "id": link["id"],
        "livemode": True,
        "slug": link["slug"],
        "publicUrl": f"https://pay.example.ng/l/{link['slug']}",
        "merchantId": merchant_with_key.merchant.public_id,
        "title": "Office chair",
        "description": "Ergonomic, black",
        "amount": {"amount": 4_500_000, "currency": "NGN"},
        "redirectUrl": "https://shop.example.com/thanks",
        "isActive": True,
        "createdAt": link["createdAt"],
        "updatedAt": link["updatedAt"],
    }
    assert link["createdAt"].endswith("Z") and link["updatedAt"].endswith("Z")


def test_description_and_redirect_url_are_optional(api, merchant_with_key):
    body = link_body(merchant_with_key.merchant)
    del body["description"], body["redirect_url"]

    response = api.post(LINKS_URL, body, format="json", **merchant_with_key.headers)

    assert response.status_code == 201
    link = response.json()["data"]
    assert link["redirectUrl"] is None and link["description"] is None


@pytest.mark.parametrize(
    ("overrides", "status", "code"),
    [
        ({"amount": 9_999}, 400, "amount_out_of_range"),
        ({"amount": 1_000_000_001}, 400, "amount_out_of_range"),
        ({"currency": "USD"}, 400, "unsupported_currency"),
        ({"amount": "4500000"}, 400, None),
        ({"title": ""}, 400, None),
        ({"title": "a\nb"}, 400, None),
        ({"redirect_url": "javascript:alert(1)"}, 400, None),
        ({"redirect_url": "ftp://example.com/x"}, 400, None),
        ({"colour": "red"}, 400, None),
    ],
)
def test_bad_links_are_refused(create_link, merchant_with_key, overrides, status, code):
    response = create_link(merchant_with_key, **overrides)

    assert response.status_code == status
    if code:
        assert response.json()["error"]["code"] == code
    else:
        assert "detail" in response.json()
    assert PaymentLink.objects.count() == 0


def test_a_link_for_another_merchant_is_403(
    api, merchant_with_key, other_merchant_with_key
):
    response = api.post(
        LINKS_URL,
        link_body(other_merchant_with_key.merchant),
        format="json",
        **merchant_with_key.headers,
    )

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "merchant_mismatch"


def test_links_need_an_api_key(api, merchant_with_key, customer):
    body = link_body(merchant_with_key.merchant)

    assert api.post(LINKS_URL, body, format="json").status_code == 401
    for token in (merchant_jwt(merchant_with_key.merchant), customer_jwt(customer)):
        refused = api.post(LINKS_URL, body, format="json", **bearer(token))
        assert refused.status_code == 403


def test_the_list_holds_the_merchants_links_newest_first_with_total(
    api, create_link, merchant_with_key, other_merchant_with_key
):
    titles = ["First", "Second", "Third"]
    for title in titles:
        create_link(merchant_with_key, title=title)
    create_link(other_merchant_with_key, title="Not mine")
    url = f"{LINKS_URL}/merchant/{merchant_with_key.merchant.public_id}"

    response = api.get(url, **merchant_with_key.headers)

    assert response.status_code == 200
    body = response.json()
    assert body["ok"] is True and body["total"] == 3
    assert [link["title"] for link in body["data"]] == ["Third", "Second", "First"]
    assert all("publicUrl" in link for link in body["data"])
    page = api.get(url, {"limit": 2, "offset": 2}, **merchant_with_key.headers).json()
    assert page["total"] == 3 and [link["title"] for link in page["data"]] == ["First"]


def test_another_merchants_list_is_refused(
    api, merchant_with_key, other_merchant_with_key
):
    url = f"{LINKS_URL}/merchant/{other_merchant_with_key.merchant.public_id}"

    assert api.get(url, **merchant_with_key.headers).status_code == 403
    unknown = api.get(f"{LINKS_URL}/merchant/mer_nobody", **merchant_with_key.headers)
    assert unknown.status_code == 404


def test_toggle_turns_a_link_off_and_on_and_answers_with_the_link(
    api, create_link, merchant_with_key
):
    link = create_link(merchant_with_key).json()["data"]
    url = f"{LINKS_URL}/{link['id']}/toggle"

    off = api.patch(
        url, {"is_active": False}, format="json", **merchant_with_key.headers
    )
    on = api.patch(url, {"is_active": True}, format="json", **merchant_with_key.headers)

    assert off.status_code == 200
    assert off.json()["data"]["isActive"] is False
    assert off.json()["data"]["id"] == link["id"]
    assert on.json()["data"]["isActive"] is True
    assert PaymentLink.objects.get().is_active is True


def test_toggling_another_merchants_link_is_404(
    api, create_link, merchant_with_key, other_merchant_with_key
):
    link = create_link(merchant_with_key).json()["data"]

    response = api.patch(
        f"{LINKS_URL}/{link['id']}/toggle",
        {"is_active": False},
        format="json",
        **other_merchant_with_key.headers,
    )

    assert response.status_code == 404
    assert PaymentLink.objects.get().is_active is True


@pytest.mark.parametrize("body", [{}, {"is_active": "false"}, {"is_active": 0}])
def test_toggle_needs_a_boolean(api, create_link, merchant_with_key, body):
    link = create_link(merchant_with_key).json()["data"]

    response = api.patch(
        f"{LINKS_URL}/{link['id']}/toggle",
        body,
        format="json",
        **merchant_with_key.headers,
    )

    assert response.status_code == 400


@pytest.mark.parametrize("link_id", ["pl_missing", "plan_abc", "pl_%00"])
def test_toggling_an_unknown_link_is_404(api, merchant_with_key, link_id):
    response = api.patch(
        f"{LINKS_URL}/{link_id}/toggle",
        {"is_active": False},
        format="json",
        **merchant_with_key.headers,
    )

    assert response.status_code == 404
