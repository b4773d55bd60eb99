"""A customer's mobile number for text messages: Nigerian numbers however
written become +234...; anything else is a clear form error that changes
nothing; /account/profile/ adds, changes and removes it."""

import re

import pytest
from django.test import Client

from payments.customers.phones import NotANigerianMobile, nigerian_mobile
from payments.customers.services import customer_sms_phone_set

from ..factories import PASSWORD, CustomerFactory

PROFILE = "/account/profile/"


@pytest.mark.parametrize(
    "written",
    [
        "08031234567",
        "0803 123 4567",
        "0803-123-4567",
        "8031234567",
        "2348031234567",
        "+2348031234567",
        "+234 803 123 4567",
        "+234 (0)803 123 4567",
        "+23408031234567",
        "002348031234567",
        " 0803.123.4567 ",
    ],
)
def test_a_nigerian_mobile_written_any_usual_way_becomes_e164(written):
    assert nigerian_mobile(written) == "+2348031234567"


@pytest.mark.parametrize(
    "prefix", ["0701", "0708", "0802", "0813", "0903", "0915", "0704"]
)
def test_every_network_range_is_a_mobile(prefix):
    assert nigerian_mobile(f"{prefix}1234567") == f"+234{prefix[1:]}1234567"


@pytest.mark.parametrize(
    ("written", "why"),
    [
        ("+447911123456", "Only Nigerian mobile numbers"),
        ("0803123456", "11 digits"),  # one digit short
        ("080312345678", "11 digits"),  # one too many
        ("0123456789", "11 digits"),  # a Lagos landline
        ("0603 123 4567", "11 digits"),  # no such mobile range
        ("0803-CALL-ME", "in digits"),
        ("", "in digits"),
    ],
)
def test_anything_else_is_refused_with_a_readable_reason(written, why):
    with pytest.raises(NotANigerianMobile, match=why):
        nigerian_mobile(written)


def test_the_service_normalizes_and_removes(customer):
    customer_sms_phone_set(
        customer=customer, sms_phone="0803 123 4567", source="account_profile"
    )
    customer.refresh_from_db()
    assert customer.sms_phone == "+2348031234567"

    customer_sms_phone_set(customer=customer, sms_phone="", source="account_profile")
    customer.refresh_from_db()
    assert customer.sms_phone == ""
    assert customer.phone == "+2348012345678"  # the registration phone stays


def text(response) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


@pytest.fixture
def ada(db):
    return CustomerFactory(email="ada@mail.example.com", phone="08012345678")


@pytest.fixture
def browser(ada) -> Client:
    client = Client()
    response = client.post(
        "/account/login/", {"email": ada.email, "password": PASSWORD}
    )
    assert response.status_code == 303
    return client


def test_the_profile_needs_a_signed_in_customer(db):
    response = Client().get(PROFILE)

    assert response.status_code == 302
    assert response["Location"].startswith("/account/login/")


def test_the_overview_links_to_adding_a_number(browser):
    page = text(browser.get("/account/"))

    assert 'data-sms-phone=""' in page
    assert f'href="{PROFILE}">Add a mobile number' in page


def test_the_form_suggests_the_registration_phone_without_saving_it(browser, ada):
    page = text(browser.get(PROFILE))

    assert 'value="+2348012345678"' in page
    ada.refresh_from_db()
    assert ada.sms_phone == ""


def test_adding_a_number_saves_it_normalized(browser, ada):
    response = browser.post(PROFILE, {"sms_phone": "0803 123 4567"})

    assert response.status_code == 303
    assert response["Location"] == PROFILE
    ada.refresh_from_db()
    assert ada.sms_phone == "+2348031234567"
    page = text(browser.get(PROFILE))
    assert "will be texted to +2348031234567" in page
    assert "Remove number" in page
    assert "Reminders and receipts are texted to <strong>+2348031234567" in text(
        browser.get("/account/")
    )


def test_changing_the_number(browser, ada):
    browser.post(PROFILE, {"sms_phone": "08031234567"})

    browser.post(PROFILE, {"sms_phone": "+234 905 555 0101"})

    ada.refresh_from_db()
    assert ada.sms_phone == "+2349055550101"


def test_removing_the_number(browser, ada):
    browser.post(PROFILE, {"sms_phone": "08031234567"})

    response = browser.post(PROFILE, {"remove": "1"})

    assert response.status_code == 303
    ada.refresh_from_db()
    assert ada.sms_phone == ""
    assert "come by e-mail only" in text(browser.get(PROFILE))


@pytest.mark.parametrize(
    ("written", "message"),
    [
        ("+44 7911 123456", "Only Nigerian mobile numbers (+234)"),
        ("0803 123", "Enter a Nigerian mobile number of 11 digits"),
        ("", "Enter your mobile number, or remove it"),
    ],
)
def test_a_bad_number_is_a_form_error_and_changes_nothing(
    browser, ada, written, message
):
    browser.post(PROFILE, {"sms_phone": "08031234567"})

    response = browser.post(PROFILE, {"sms_phone": written})

    assert response.status_code == 400
    assert message in text(response)
    ada.refresh_from_db()
    assert ada.sms_phone == "+2348031234567"


def test_a_customer_changes_only_their_own_number(browser, ada):
    other = CustomerFactory()

    browser.post(PROFILE, {"sms_phone": "08031234567", "customer": other.public_id})

    other.refresh_from_db()
    assert other.sms_phone == ""
