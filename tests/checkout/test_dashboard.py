"""The dashboard's payment link pages: list, create (amount in naira), copy URL,
toggle, one link's page (issue 8, DESIGN §12)."""

import re

import pytest
from django.test import Client

from checkout import services
from checkout.models import PaymentLink
from config.money import naira_to_kobo

from ..factories import MerchantFactory

pytestmark = pytest.mark.django_db

LINKS = "/dashboard/links/"


def make_link(merchant, title="Office chair", amount=4_500_000, **fields):
    return services.payment_link_create(
        merchant=merchant, title=title, amount=amount, currency="NGN", **fields
    )


def form(**overrides) -> dict:
    return {
        "title": "Office chair",
        "amount": "45,000",
        "currency": "NGN",
        "description": "Ergonomic, black",
        "redirect_url": "https://shop.example.com/thanks",
    } | overrides


def field_errors(page: str, field: str) -> str:
    """The text of form field `field`'s block."""
    start = page.index(f'data-field="{field}"')
    end = page.find("data-field=", start + 1)
    return page[start : end if end > 0 else page.index("</form>", start)]


def shown_link_ids(page: str) -> list[str]:
    return re.findall(r'data-link-id="(pl_\w+)"', page)


@pytest.mark.parametrize(
    ("typed", "kobo"),
    [
        ("45000", 4_500_000),
        ("45,000", 4_500_000),
        ("45,000.5", 4_500_050),
        ("45000.05", 4_500_005),
        ("₦1,234,567.89", 123_456_789),
        (" 100 ", 10_000),
        ("0.99", 99),
    ],
)
def test_amounts_are_typed_in_naira_and_kept_in_kobo(typed, kobo):
    assert naira_to_kobo(typed) == kobo


@pytest.mark.parametrize(
    "typed", ["", "abc", "45.000", "45,00", "1.234", "-500", "1e5", "4 5000", "١٢٣"]
)
def test_text_that_is_not_an_amount_of_naira_is_refused(typed):
    assert naira_to_kobo(typed) is None


def test_a_merchant_creates_a_link_in_naira_and_sees_it_listed(
    dashboard_for, merchant_active, settings
):
    settings.CONSUMER_URL = "https://pay.example.ng"
    client = dashboard_for(merchant_active)

    response = client.post(LINKS, form())

    assert response.status_code == 303
    link = PaymentLink.objects.get(merchant=merchant_active)
    assert (link.title, link.amount, link.currency) == (
        "Office chair",
        4_500_000,
        "NGN",
    )
    assert link.description == "Ergonomic, black"
    assert link.redirect_url == "https://shop.example.com/thanks"
    assert link.is_active
    page = client.get(response["Location"]).content.decode()
    url = f"https://pay.example.ng/l/{link.slug}"
    assert f"Payment link “Office chair” created: share {url}" in page
    assert f'<code class="wrap" id="url-{link.public_id}">{url}</code>' in page
    assert f'data-copy-target="#url-{link.public_id}"' in page
    assert "₦45,000.00" in page


def test_optional_fields_may_be_left_empty(dashboard_for, merchant_active):
    dashboard_for(merchant_active).post(
        LINKS, form(description="", redirect_url="", amount="100")
    )

    link = PaymentLink.objects.get(merchant=merchant_active)
    assert (link.description, link.redirect_url, link.amount) == ("", "", 10_000)


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"title": ""}, "title", "This field is required."),
        ({"title": "x" * 201}, "title", "no more than 200 characters"),
        (
            {"title": "Chair\x07"},
            "title",
            "Line breaks and other control characters are not allowed.",
        ),
        ({"amount": ""}, "amount", "This field is required."),
        (
            {"amount": "45k"},
            "amount",
            "Enter the amount in naira with at most two decimal places",
        ),
        (
            {"amount": "99.99"},
            "amount",
            "Enter an amount between ₦100.00 and ₦10,000,000.00.",
        ),
        (
            {"amount": "10,000,000.01"},
            "amount",
            "Enter an amount between ₦100.00 and ₦10,000,000.00.",
        ),
        (
            {"amount": "9" * 30},
            "amount",
            "Enter an amount between ₦100.00 and ₦10,000,000.00.",
        ),
        ({"currency": "USD"}, "currency", "Select a valid choice."),
        ({"description": "d" * 1001}, "description", "no more than 1000 characters"),
        ({"redirect_url": "not a url"}, "redirect_url", "Enter a valid URL."),
        (
            {"redirect_url": "ftp://shop.example.com/x"},
            "redirect_url",
            "redirect_url must be an http(s) URL.",
        ),
    ],
)
def test_a_bad_link_is_refused_with_the_message_next_to_its_field(
    dashboard_for, merchant_active, overrides, field, message
):
    response = dashboard_for(merchant_active).post(LINKS, form(**overrides))

    page = response.content.decode()
    assert response.status_code == 400
    assert message in field_errors(page, field)
    assert 'class="field-error"' in field_errors(page, field)
    assert not PaymentLink.objects.exists()


def test_every_bad_field_is_reported_at_once(dashboard_for, merchant_active):
    page = (
        dashboard_for(merchant_active)
        .post(LINKS, form(title="", amount="5", redirect_url="ftp://x.example"))
        .content.decode()
    )

    assert "This field is required." in field_errors(page, "title")
    assert "may not be blank" not in page
    assert "Enter an amount between" in field_errors(page, "amount")
    assert "must be an http(s) URL" in field_errors(page, "redirect_url")


def test_the_form_keeps_what_was_typed_after_an_error(dashboard_for, merchant_active):
    page = (
        dashboard_for(merchant_active)
        .post(LINKS, form(amount="1", title="Sofa"))
        .content.decode()
    )

    assert 'value="Sofa"' in field_errors(page, "title")
    assert 'value="1"' in field_errors(page, "amount")


def test_the_list_shows_only_the_merchants_links_newest_first_and_paginates(
    dashboard_for, merchant_active
):
    links = [make_link(merchant_active, title=f"Item {n}") for n in range(23)]
    make_link(MerchantFactory(), title="Someone else's")
    client = dashboard_for(merchant_active)

    first = client.get(LINKS).content.decode()
    second = client.get(f"{LINKS}?page=2").content.decode()

    newest_first = [link.public_id for link in reversed(links)]
    assert shown_link_ids(first) == newest_first[:20]
    assert shown_link_ids(second) == newest_first[20:]
    assert "Someone else" not in first + second
    assert 'href="?page=2"' in first
    assert "Page 2 of 2" in second
    assert (
        shown_link_ids(client.get(f"{LINKS}?page=99").content.decode())
        == (newest_first[20:])
    )


def test_toggling_switches_a_link_off_and_on(dashboard_for, merchant_active):
    link = make_link(merchant_active)
    client = dashboard_for(merchant_active)

    off = client.post(f"{LINKS}{link.public_id}/toggle/", {"is_active": "false"})
    link.refresh_from_db()
    assert off.status_code == 303 and not link.is_active
    page = client.get(off["Location"]).content.decode()
    assert "“Office chair” is inactive" in page
    assert "badge-inactive" in page
    assert ">Activate</button>" in page

    # The same click twice leaves it off: the form says which state it wants.
    client.post(f"{LINKS}{link.public_id}/toggle/", {"is_active": "false"})
    link.refresh_from_db()
    assert not link.is_active

    client.post(f"{LINKS}{link.public_id}/toggle/", {"is_active": "true"})
    link.refresh_from_db()
    assert link.is_active


def test_an_inactive_link_no_longer_opens_a_checkout(dashboard_for, merchant_active):
    link = make_link(merchant_active)

    dashboard_for(merchant_active).post(
        f"{LINKS}{link.public_id}/toggle/", {"is_active": "false"}
    )

    assert Client().get(f"/l/{link.slug}").status_code == 404


def test_toggle_needs_a_true_or_false_state(dashboard_for, merchant_active):
    link = make_link(merchant_active)

    response = dashboard_for(merchant_active).post(
        f"{LINKS}{link.public_id}/toggle/", {"is_active": "maybe"}
    )

    assert response.status_code == 400
    link.refresh_from_db()
    assert link.is_active


def test_another_merchants_link_is_not_found(dashboard_for, merchant_active):
    theirs = make_link(MerchantFactory())
    client = dashboard_for(merchant_active)

    assert client.get(f"{LINKS}{theirs.public_id}/").status_code == 404
    toggled = client.post(f"{LINKS}{theirs.public_id}/toggle/", {"is_active": "false"})
    assert toggled.status_code == 404
    theirs.refresh_from_db()
    assert theirs.is_active
    assert client.get(f"{LINKS}pl_%00/").status_code == 404
    assert client.post(f"{LINKS}nope/toggle/", {"is_active": "false"}).status_code == (
        404
    )


def test_the_link_page_shows_the_link_and_the_checkouts_it_opened(
    dashboard_for, merchant_active
):
    link = make_link(merchant_active)
    session = services.payment_link_session_open(link=link)

    page = dashboard_for(merchant_active).get(f"{LINKS}{link.public_id}/")

    text = page.content.decode()
    assert page.status_code == 200
    assert "Office chair" in text
    assert session.order_reference in text
    assert "badge-open" in text


def test_a_pending_merchant_is_told_links_work_once_the_account_is_active(
    dashboard_for, merchant_pending
):
    page = dashboard_for(merchant_pending).get(LINKS).content.decode()

    assert "Customers can pay through your links once your account is active." in page
