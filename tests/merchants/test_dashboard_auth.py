"""Dashboard sign-in, sign-out, CSRF, password change and reset (DESIGN §4, §12)."""

import re
from datetime import timedelta

import pytest
import time_machine
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django.core import mail
from django.http import HttpResponse
from django.test import Client
from django.utils import timezone

from merchants.dashboard.auth import (
    SESSION_MEMBER_KEY,
    dashboard_sign_in,
    merchant_login_required,
)
from merchants.team.selectors import owner_of

from ..dashboards import sign_in
from ..factories import PASSWORD

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "Brand-New-Passw0rd-77"
DASHBOARD_PAGES = [
    "/dashboard/",
    "/dashboard/keys/",
    "/dashboard/settings/",
    "/dashboard/password/",
]


def csrf_token_of(client: Client, path: str) -> str:
    page = client.get(path).content.decode()
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)


def test_sign_in_with_the_api_credentials_opens_the_overview(client, merchant_active):
    response = client.post(
        "/dashboard/login/",
        {"email": merchant_active.email.upper(), "password": PASSWORD},
    )

    assert response.status_code == 303
    assert response["Location"] == "/dashboard/"
    overview = client.get("/dashboard/")
    assert overview.status_code == 200
    assert merchant_active.business_name in overview.content.decode()
    assert merchant_active.public_id in overview.content.decode()


def test_a_wrong_password_is_refused_with_a_message_and_no_session(
    client, merchant_active
):
    response = client.post(
        "/dashboard/login/", {"email": merchant_active.email, "password": "wrong"}
    )

    assert response.status_code == 400
    assert "The e-mail address or password is incorrect." in response.content.decode()
    assert SESSION_MEMBER_KEY not in client.session
    assert client.get("/dashboard/").status_code == 302


def test_an_empty_sign_in_form_shows_errors_next_to_each_field(client, db):
    response = client.post("/dashboard/login/", {"email": "not-an-email"})

    page = response.content.decode()
    assert response.status_code == 400
    assert re.search(r'data-field="email".*?Enter a valid email address', page, re.S)
    assert re.search(r'data-field="password".*?This field is required', page, re.S)


def test_sign_in_is_refused_after_five_failures_on_the_account(client, merchant_active):
    for _ in range(settings.LOGIN_FAILURES_PER_ACCOUNT):
        client.post(
            "/dashboard/login/", {"email": merchant_active.email, "password": "nope"}
        )

    response = client.post(
        "/dashboard/login/", {"email": merchant_active.email, "password": PASSWORD}
    )

    assert response.status_code == 429
    assert "Too many failed sign-ins for this account" in response.content.decode()
    assert SESSION_MEMBER_KEY not in client.session


def test_sign_in_gives_the_browser_a_new_session_key(client, merchant_active):
    client.get("/dashboard/login/")
    session = client.session
    session["anything"] = "before sign-in"
    session.save()
    before = session.session_key

    sign_in(client, merchant_active)

    assert client.session.session_key != before


@pytest.mark.parametrize("path", DASHBOARD_PAGES)
def test_anonymous_visitors_are_sent_to_sign_in_and_back(client, db, path):
    response = client.get(path)

    assert response.status_code == 302
    assert response["Location"] == f"/dashboard/login/?next={path.replace('/', '%2F')}"


def test_sign_in_returns_to_the_page_asked_for_but_never_off_site(
    client, merchant_active
):
    credentials = {"email": merchant_active.email, "password": PASSWORD}

    inside = client.post(
        "/dashboard/login/", {**credentials, "next": "/dashboard/settings/"}
    )
    client.post("/dashboard/logout/")
    outside = client.post(
        "/dashboard/login/", {**credentials, "next": "https://evil.example/x"}
    )

    assert inside["Location"] == "/dashboard/settings/"
    assert outside["Location"] == "/dashboard/"


def test_a_staff_session_does_not_open_the_dashboard(client, db):
    staff = get_user_model().objects.create_superuser(
        "staff", "staff@installments.ng", "Staff-Passw0rd-1"
    )
    client.force_login(staff)

    assert client.get("/dashboard/").status_code == 302


def test_sign_out_is_a_post_and_ends_the_dashboard_session(
    dashboard_for, merchant_active
):
    client = dashboard_for(merchant_active)

    assert client.get("/dashboard/logout/").status_code == 405
    response = client.post("/dashboard/logout/", follow=True)

    assert "You are signed out." in response.content.decode()
    assert client.get("/dashboard/").status_code == 302


@pytest.mark.parametrize(
    ("page", "data"),
    [
        ("/dashboard/login/", {"email": "x@example.com", "password": "x"}),
        ("/dashboard/logout/", {}),
        ("/dashboard/keys/", {"name": "k"}),
        ("/dashboard/settings/", {"action": "webhook_url", "webhook_url": ""}),
        ("/dashboard/settings/", {"action": "webhook_secret"}),
        ("/dashboard/password/", {"current_password": PASSWORD}),
        ("/dashboard/password-reset/", {"email": "x@example.com"}),
    ],
)
def test_every_form_refuses_a_post_without_the_csrf_token(merchant_active, page, data):
    client = Client(enforce_csrf_checks=True)
    token = csrf_token_of(client, "/dashboard/login/")
    client.post(
        "/dashboard/login/",
        {"email": merchant_active.email, "password": PASSWORD},
        HTTP_X_CSRFTOKEN=token,
    )
    assert client.get("/dashboard/").status_code == 200

    response = client.post(page, data)

    assert response.status_code == 403
    assert b"CSRF" in response.content


def test_forms_work_with_the_csrf_token_the_page_renders(merchant_active):
    client = Client(enforce_csrf_checks=True)
    token = csrf_token_of(client, "/dashboard/login/")
    signed_in = client.post(
        "/dashboard/login/",
        {
            "email": merchant_active.email,
            "password": PASSWORD,
            "csrfmiddlewaretoken": token,
        },
    )
    token = csrf_token_of(client, "/dashboard/keys/")
    rotated = client.post(
        "/dashboard/keys/", {"name": "ci", "csrfmiddlewaretoken": token}
    )

    assert signed_in.status_code == 303
    assert rotated.status_code == 200
    assert merchant_active.api_keys.count() == 1


def test_changing_the_password_signs_out_every_other_session_but_this_one(
    dashboard_for, merchant_active
):
    here = dashboard_for(merchant_active)
    elsewhere = dashboard_for(merchant_active)

    response = here.post(
        "/dashboard/password/",
        {
            "current_password": PASSWORD,
            "new_password": NEW_PASSWORD,
            "new_password_confirm": NEW_PASSWORD,
        },
    )

    assert response.status_code == 303
    assert here.get("/dashboard/").status_code == 200
    assert elsewhere.get("/dashboard/").status_code == 302
    assert owner_of(merchant_active).check_password(NEW_PASSWORD)


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        (
            {"current_password": "wrong", "new_password": NEW_PASSWORD},
            "current_password",
            "Your current password is incorrect.",
        ),
        (
            {"new_password": NEW_PASSWORD, "new_password_confirm": NEW_PASSWORD + "x"},
            "new_password_confirm",
            "The two passwords do not match.",
        ),
        (
            {"new_password": "12345678", "new_password_confirm": "12345678"},
            "new_password",
            "This password is entirely numeric.",
        ),
    ],
)
def test_a_refused_password_change_says_why_next_to_the_field(
    dashboard_for, merchant_active, data, field, message
):
    client = dashboard_for(merchant_active)

    response = client.post(
        "/dashboard/password/", {"current_password": PASSWORD, **data}
    )

    page = response.content.decode()
    assert response.status_code == 400
    assert re.search(rf'data-field="{field}".*?{re.escape(message)}', page, re.S)
    assert owner_of(merchant_active).check_password(PASSWORD)


def reset_link_path() -> str:
    [message] = mail.outbox
    link = re.search(r"https?://\S+/dashboard/password-reset/\S+/", message.body)[0]
    return link[link.index("/dashboard/") :]


def test_password_reset_by_email_sets_a_new_password_and_ends_old_sessions(
    client, dashboard_for, merchant_active, committed
):
    old_session = dashboard_for(merchant_active)

    with committed():
        sent = client.post(
            "/dashboard/password-reset/", {"email": merchant_active.email}
        )
    assert sent.status_code == 303
    assert sent["Location"] == "/dashboard/password-reset/sent/"
    assert mail.outbox[0].to == [merchant_active.email]
    link = reset_link_path()

    opened = client.get(link)
    assert opened.status_code == 302
    form_url = opened["Location"]
    assert form_url.endswith("/set-password/")
    assert link.split("/")[-2] not in form_url
    done = client.post(
        form_url,
        {"new_password": NEW_PASSWORD, "new_password_confirm": NEW_PASSWORD},
    )

    assert done.status_code == 303
    assert done["Location"] == "/dashboard/login/"
    assert owner_of(merchant_active).check_password(NEW_PASSWORD)
    assert old_session.get("/dashboard/").status_code == 302
    sign_in(Client(), merchant_active, NEW_PASSWORD)


def test_a_reset_link_works_only_once(client, merchant_active, committed):
    with committed():
        client.post("/dashboard/password-reset/", {"email": merchant_active.email})
    link = reset_link_path()
    form_url = client.get(link)["Location"]
    client.post(
        form_url, {"new_password": NEW_PASSWORD, "new_password_confirm": NEW_PASSWORD}
    )

    again = Client().get(link)

    assert again.status_code == 400
    assert "This link no longer works" in again.content.decode()


def test_a_reset_link_expires(client, merchant_active, committed):
    with committed():
        client.post("/dashboard/password-reset/", {"email": merchant_active.email})
    link = reset_link_path()

    # A day past the limit: the token generator reads local wall time, which
    # time_machine shifts by the zone offset.
    later = timezone.now() + timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT, days=1)
    with time_machine.travel(later):
        response = client.get(link)

    assert response.status_code == 400


def test_reset_for_an_unknown_address_looks_the_same_and_sends_nothing(
    client, db, committed
):
    with committed():
        response = client.post(
            "/dashboard/password-reset/", {"email": "ghost@nowhere.ng"}
        )

    assert response.status_code == 303
    assert response["Location"] == "/dashboard/password-reset/sent/"
    assert mail.outbox == []


def test_reset_emails_are_capped_per_account_per_hour(
    client, merchant_active, committed
):
    with committed():
        for _ in range(5):
            client.post("/dashboard/password-reset/", {"email": merchant_active.email})

    assert len(mail.outbox) == 3


def test_a_forged_reset_token_is_refused(client, merchant_active):
    response = client.get(
        f"/dashboard/password-reset/{merchant_active.public_id}/abc-123/"
    )
    set_password = client.post(
        f"/dashboard/password-reset/{merchant_active.public_id}/set-password/",
        {"new_password": NEW_PASSWORD, "new_password_confirm": NEW_PASSWORD},
    )

    assert response.status_code == 400
    assert set_password.status_code == 400
    assert owner_of(merchant_active).check_password(PASSWORD)


def test_signing_in_as_another_merchant_leaves_nothing_of_the_first(
    client, merchant_active, merchant_pending
):
    sign_in(client, merchant_active)
    session = client.session
    session["left_behind"] = merchant_active.public_id
    session.save()

    sign_in(client, merchant_pending)

    assert "left_behind" not in client.session
    assert merchant_pending.business_name in client.get("/dashboard/").content.decode()


def test_the_decorator_other_apps_use_guards_function_views(rf, merchant_active):
    @merchant_login_required
    def page(request):
        return HttpResponse(request.merchant.public_id)

    anonymous = rf.get("/dashboard/plans/?status=active")
    anonymous.session = SessionStore()
    signed_in = rf.get("/dashboard/plans/")
    signed_in.session = SessionStore()
    dashboard_sign_in(signed_in, owner_of(merchant_active))
    # A new request on the same session.
    del signed_in.merchant, signed_in.member

    refused = page(anonymous)
    served = page(signed_in)

    assert refused.status_code == 302
    assert refused["Location"] == (
        "/dashboard/login/?next=%2Fdashboard%2Fplans%2F%3Fstatus%3Dactive"
    )
    assert served.content.decode() == merchant_active.public_id
    assert "no-store" in served["Cache-Control"]
