"""Sign-up cannot be used to send our e-mails to anyone (issue 25, item 5):
throttled per client address and per e-mail address, business names one line,
and no e-mail a sign-up sends repeats what the stranger typed."""

from datetime import timedelta

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.exceptions import ValidationError
from django.test import Client
from django.utils import timezone

from config.api.rates import parse_rate
from merchants import services
from merchants.models import Merchant

from ..config.production import manage
from ..conftest import bearer, merchant_jwt, redis_client
from ..factories import MerchantFactory
from .forms import field_errors

pytestmark = pytest.mark.django_db

API_URL = "/api/v1/auth/merchant/register"
FORM_URL = "/dashboard/signup/"
PHISHING = "Jumia\nAlert: your card is blocked. Verify at http://evil.example"
REFUSED = "Line breaks and other control characters are not allowed."


def body(n: int = 0, **overrides) -> dict:
    return {
        "business_name": f"Adaeze Fabrics {n}",
        "business_url": "https://adaeze-fabrics.ng",
        "email": f"owner{n}@adaeze-fabrics.ng",
        "password": "Kente-and-Aso-0ke",
        **overrides,
    }


@pytest.fixture
def hour_start():
    """Ten minutes into a fresh hour: the sign-up windows are fixed hours."""
    now = timezone.now().replace(minute=0, second=0, microsecond=0)
    with time_machine.travel(now + timedelta(hours=1, minutes=10), tick=False):
        yield


def from_ip(address: str) -> dict:
    return {"REMOTE_ADDR": address}


# --- per client address ---------------------------------------------------------


def test_the_eleventh_sign_up_from_one_address_in_an_hour_is_429(
    api, hour_start, committed
):
    with committed():
        codes = [
            api.post(API_URL, body(n), format="json").status_code for n in range(10)
        ]
        over = api.post(API_URL, body(10), format="json")

    assert codes == [201] * 10
    assert over.status_code == 429
    assert over.json() == {
        "ok": False,
        "error": {
            "code": "rate_limited",
            "message": "Too many sign-ups from this address; retry in 3000 s.",
        },
    }
    assert over["Retry-After"] == "3000"
    assert Merchant.objects.count() == 10
    assert len(mail.outbox) == 10
    # Another client address still signs up.
    other = api.post(API_URL, body(11), format="json", **from_ip("10.0.0.2"))
    assert other.status_code == 201


def test_a_sign_up_refused_for_its_password_does_not_count(api, hour_start):
    weak = [
        api.post(API_URL, body(password="password123"), format="json").status_code
        for _ in range(12)
    ]

    assert weak == [400] * 12
    assert api.post(API_URL, body(), format="json").status_code == 201


def test_the_web_form_and_the_api_share_the_budget_and_the_form_says_why(
    api, hour_start
):
    for n in range(5):
        assert api.post(API_URL, body(n), format="json").status_code == 201
    browser = Client()
    for n in range(5, 10):
        assert browser.post(FORM_URL, body(n)).status_code == 303

    over = browser.post(FORM_URL, body(10))

    assert over.status_code == 429
    assert over["Retry-After"] == "3000"
    page = over.content.decode()
    assert "Too many sign-ups from this address; retry in 3000 s." in page
    assert 'value="Adaeze Fabrics 10"' in page  # what was typed stays
    assert Merchant.objects.count() == 10


def test_the_next_window_has_a_fresh_budget(api):
    start = timezone.now().replace(minute=0, second=0, microsecond=0)
    with time_machine.travel(start + timedelta(hours=1, minutes=59), tick=False):
        for n in range(10):
            api.post(API_URL, body(n), format="json")
        assert api.post(API_URL, body(10), format="json").status_code == 429
    with time_machine.travel(start + timedelta(hours=2), tick=False):
        assert api.post(API_URL, body(10), format="json").status_code == 201


def test_signup_rate_limit_sets_the_budget_per_client_address(
    api, settings, hour_start
):
    settings.SIGNUP_RATE_LIMIT = "2/minute"

    codes = [api.post(API_URL, body(n), format="json").status_code for n in range(3)]

    assert codes == [201, 201, 429]


@pytest.mark.parametrize(
    "text, rate",
    [("10/hour", (10, 3600)), ("1/second", (1, 1)), (" 500/day", (500, 86400))],
)
def test_a_rate_is_a_count_per_period(text, rate):
    assert parse_rate(text) == rate


@pytest.mark.parametrize("text", ["", "10", "0/hour", "-1/hour", "10/week", "x/hour"])
def test_a_malformed_rate_is_refused(text):
    with pytest.raises(ValueError, match="10/hour"):
        parse_rate(text)


def test_a_malformed_signup_rate_limit_stops_the_service_at_start():
    result = manage("check", SIGNUP_RATE_LIMIT="10 per hour")

    assert result.returncode != 0
    assert "SIGNUP_RATE_LIMIT: '10 per hour' is not a rate" in result.stderr


# --- per e-mail address -----------------------------------------------------------


def test_the_fourth_sign_up_with_one_e_mail_address_in_an_hour_is_429(api, hour_start):
    """Counted whatever the client address and whether or not the address has
    an account: an inbox gets at most 3 sign-up e-mails an hour."""
    first = api.post(API_URL, body(), format="json", **from_ip("10.0.0.1"))
    again = [
        api.post(API_URL, body(), format="json", **from_ip(f"10.0.0.{n}")).status_code
        for n in (2, 3)
    ]
    over = api.post(
        API_URL,
        body(email="OWNER0@adaeze-fabrics.ng"),
        format="json",
        **from_ip("10.0.0.4"),
    )

    assert (first.status_code, again) == (201, [409, 409])
    assert over.status_code == 429
    assert over.json()["error"] == {
        "code": "rate_limited",
        "message": "Too many sign-ups with this e-mail address; retry in 3000 s.",
    }
    assert over["Retry-After"] == "3000"


def test_the_form_throttles_an_address_with_an_account_like_a_new_one(
    hour_start, committed
):
    """The owner of a taken address gets at most 3 "someone tried" e-mails an
    hour, and the fourth attempt is answered as for a new address."""
    owner = MerchantFactory(email="owner0@adaeze-fabrics.ng")
    with committed():
        taken = [
            Client().post(FORM_URL, body(), **from_ip(f"10.0.1.{n}")).status_code
            for n in range(4)
        ]
    new = [
        Client().post(FORM_URL, body(1), **from_ip(f"10.0.2.{n}")).status_code
        for n in range(4)
    ]

    assert taken == new == [303, 303, 303, 429]
    assert [m.to for m in mail.outbox].count([owner.email]) == 3


@pytest.mark.redis
def test_with_redis_the_sign_up_counters_live_in_redis(api, hour_start):
    for n in range(10):
        assert api.post(API_URL, body(n), format="json").status_code == 201
    assert api.post(API_URL, body(10), format="json").status_code == 429

    keys = {key.decode() for key in redis_client().keys("rl:signup-*")}
    assert any(key.startswith("rl:signup-ip:merchant:127.0.0.1:") for key in keys)
    assert sum(key.startswith("rl:signup-address:merchant:") for key in keys) == 10


# --- business names -----------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [PHISHING, "Shop\r\nX", "Shop\u2028X", "Shop\x85X", "Shop\tX", "Shop\x1bX"],
)
def test_the_api_refuses_a_business_name_with_a_line_break(api, name):
    response = api.post(API_URL, body(business_name=name), format="json")

    assert response.status_code == 400
    assert response.json()["errors"] == {"business_name": [REFUSED]}
    assert Merchant.objects.count() == 0
    assert mail.outbox == []


def test_the_form_refuses_a_business_name_with_a_line_break_like_the_api():
    response = Client().post(FORM_URL, body(business_name=PHISHING))

    assert response.status_code == 400
    assert field_errors(response.content.decode()) == {"business_name": [REFUSED]}
    assert Merchant.objects.count() == 0
    assert mail.outbox == []


def test_a_business_name_stays_one_line_in_the_model(merchant_active):
    merchant_active.business_name = PHISHING
    with pytest.raises(ValidationError) as error:
        merchant_active.full_clean()
    assert error.value.message_dict == {"business_name": [REFUSED]}


@pytest.fixture
def staff_client(client):
    staff = get_user_model().objects.create_superuser(
        "staff", "staff@installments.ng", "Staff-Passw0rd-1"
    )
    client.force_login(staff)
    return client


def _admin_change(staff_client, merchant, **changes):
    """The admin's change form posted back as shown, with `changes`."""
    url = f"/admin/merchants/merchant/{merchant.pk}/change/"
    page = staff_client.get(url)
    data = {}
    for field in page.context["adminform"].form:
        value = field.value()
        data[field.name] = "" if value is None else value
    for inline in page.context["inline_admin_formsets"]:
        management = inline.formset.management_form
        data.update(
            {
                f"{management.prefix}-{name}": value
                for name, value in management.initial.items()
            }
        )
    return staff_client.post(url, {**data, **changes})


def test_the_admin_refuses_a_business_name_with_a_line_break(
    staff_client, merchant_active
):
    renamed = _admin_change(staff_client, merchant_active, business_name="New name")
    assert renamed.status_code == 302, renamed.context["adminform"].form.errors
    assert Merchant.objects.get(pk=merchant_active.pk).business_name == "New name"

    refused = _admin_change(staff_client, merchant_active, business_name=PHISHING)

    assert refused.status_code == 200
    assert REFUSED in refused.content.decode()
    assert Merchant.objects.get(pk=merchant_active.pk).business_name == "New name"


def test_settings_do_not_take_a_business_name(api, merchant_active):
    """Only sign-up and staff set the name (staff approve what customers read),
    so settings refuse the field rather than let an approved merchant rename
    itself."""
    response = api.patch(
        f"/api/v1/merchant/{merchant_active.public_id}/settings",
        {"business_name": PHISHING},
        format="json",
        **bearer(merchant_jwt(merchant_active)),
    )

    assert response.status_code == 400
    assert response.json()["errors"] == {"business_name": ["Unknown field."]}
    assert Merchant.objects.get(pk=merchant_active.pk).business_name != PHISHING


# --- what the e-mails say -------------------------------------------------------------

LURE = "Alert: your card is blocked. Verify at http://evil.example"


def test_the_acknowledgement_is_our_words_only(api, committed):
    with committed():
        api.post(API_URL, body(business_name=LURE), format="json")

    (email,) = mail.outbox
    assert email.subject == "We received your merchant application"
    assert email.body.startswith("Hello,\n\nThank you for applying")
    assert "evil.example" not in email.body
    assert "Alert" not in email.body
    assert "If you did not apply, reply to this e-mail" in email.body


def test_no_e_mail_to_a_merchant_repeats_its_business_name(committed):
    merchant = MerchantFactory(business_name=LURE)
    with committed():
        services.merchant_approve(merchant=merchant)
        services.merchant_set_api_access(merchant=merchant, enabled=True)
        services.merchant_suspend(merchant=merchant)
        services.merchant_password_reset_send(email=merchant.email)

    subjects = [email.subject for email in mail.outbox]
    assert subjects == [
        "Your merchant account is approved",
        "API access enabled",
        "Your merchant account is suspended",
        "Reset your dashboard password",
    ]
    for email in mail.outbox:
        assert email.body.startswith("Hello,\n\n")
        assert "evil.example" not in email.body
