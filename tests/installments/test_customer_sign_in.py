"""A customer's ways in without a password to remember (DESIGN section 17):
the password-reset link and signing in with a one-time code, over the
`/account/` pages and `POST /api/v1/auth/customer/password-reset`."""

import re
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
import time_machine
from django.core import mail
from django.test import Client
from django.utils import timezone

from installments.notifications.models import Message
from installments.signin.services import sign_in_code_check, sign_in_code_send
from payments.customers.models import SignInCode

from ..conftest import bearer
from ..factories import PASSWORD, CustomerFactory
from .account import text

NEW_PASSWORD = "a-new-Passphrase-42"
RESET_API = "/api/v1/auth/customer/password-reset"


@pytest.fixture
def ada(db):
    return CustomerFactory(email="ada@mail.example.com", sms_phone="+2348031234567")


def reset_link(message) -> str:
    (url,) = re.findall(r"https?://\S+/account/password-reset/\S+/", message.body)
    return urlsplit(url).path


def code_in(message) -> str:
    (code,) = re.findall(r"\b\d{6}\b", message.body)
    return code


def ask_reset(client, email, committed):
    with committed():
        return client.post("/account/password-reset/", {"email": email})


def set_new_password(client, link, password=NEW_PASSWORD):
    form = client.get(link)
    assert form.status_code == 303, form.content
    return client.post(
        form["Location"],
        {"new_password": password, "new_password_confirm": password},
    )


def ask_code(client, email, committed):
    with committed():
        return client.post("/account/login/code/", {"email": email})


def enter_code(client, email, code):
    return client.post("/account/login/code/enter/", {"email": email, "code": code})


# --- password reset ----------------------------------------------------------------


def test_a_reset_link_sets_a_new_password_once(ada, committed):
    client = Client()

    asked = ask_reset(client, ada.email, committed)

    assert asked.status_code == 303
    assert asked["Location"] == "/account/password-reset/sent/"
    (email,) = mail.outbox
    assert email.to == [ada.email]
    link = reset_link(email)
    done = set_new_password(client, link)
    assert done.status_code == 303
    assert done["Location"] == "/account/login/"
    ada.refresh_from_db()
    assert ada.check_password(NEW_PASSWORD)
    again = Client().get(link)
    assert again.status_code == 400
    assert "This link no longer works" in text(again)


def test_two_resets_asked_within_one_second_are_one_link_sent_once(ada, committed):
    with time_machine.travel(timezone.now(), tick=False):
        ask_reset(Client(), ada.email, committed)
        ask_reset(Client(), ada.email, committed)

    assert len(mail.outbox) == 1


def test_a_reset_message_is_recorded_once_by_email_only(ada, committed):
    ask_reset(Client(), ada.email, committed)

    (message,) = Message.objects.filter(kind=Message.Kind.PASSWORD_RESET)
    assert message.channel == Message.Channel.EMAIL
    assert message.customer_id == ada.pk
    assert message.status == Message.Status.SENT
    assert message.subject.startswith(f"{ada.public_id}_")
    assert len(mail.outbox) == 1


def test_reset_for_an_unknown_address_looks_the_same_and_sends_nothing(ada, committed):
    known = ask_reset(Client(), ada.email, committed)
    mail.outbox.clear()

    unknown = ask_reset(Client(), "ghost@nowhere.ng", committed)

    assert unknown.status_code == known.status_code == 303
    assert unknown["Location"] == known["Location"]
    assert mail.outbox == []
    assert Message.objects.filter(kind=Message.Kind.PASSWORD_RESET).count() == 1


def test_a_reset_link_expires_after_an_hour(ada, committed):
    ask_reset(Client(), ada.email, committed)
    link = reset_link(mail.outbox[0])

    with time_machine.travel(timezone.now() + timedelta(minutes=59)):
        assert Client().get(link).status_code == 303
    with time_machine.travel(timezone.now() + timedelta(minutes=61)):
        late = Client().get(link)

    assert late.status_code == 400
    assert "This link no longer works" in text(late)


def test_a_forged_link_does_not_work(ada):
    response = Client().get(f"/account/password-reset/{ada.public_id}/abc-123/")

    assert response.status_code == 400


def test_the_form_page_without_the_token_in_the_session_does_not_work(ada):
    response = Client().get(f"/account/password-reset/{ada.public_id}/set-password/")

    assert response.status_code == 400


def test_a_reset_ends_every_earlier_session_and_token(ada, api, committed):
    old = api.post(
        "/api/v1/auth/customer/login",
        {"email": ada.email, "password": PASSWORD},
        format="json",
    ).json()["data"]
    signed_in = Client()
    signed_in.post("/account/login/", {"email": ada.email, "password": PASSWORD})
    assert signed_in.get("/account/").status_code == 200

    ask_reset(Client(), ada.email, committed)
    set_new_password(Client(), reset_link(mail.outbox[0]))

    assert api.get("/api/v1/customers/me", **bearer(old["access"])).status_code == 401
    refreshed = api.post(
        "/api/v1/auth/token/refresh", {"refresh": old["refresh"]}, format="json"
    )
    assert refreshed.status_code == 401
    page = signed_in.get("/account/")
    assert page.status_code == 302
    assert page["Location"].startswith("/account/login/")


def test_the_new_password_must_pass_the_password_rules(ada, committed):
    client = Client()
    ask_reset(client, ada.email, committed)

    refused = set_new_password(client, reset_link(mail.outbox[0]), "password")

    assert refused.status_code == 400
    ada.refresh_from_db()
    assert ada.check_password(PASSWORD)


def test_at_most_three_reset_emails_an_hour_reach_one_account(ada, committed):
    # The budget counts per clock hour (config/api/ratelimit.py): the five
    # asks fall within one, wherever the test's clock stands.
    start = timezone.now().replace(minute=0, second=0, microsecond=0) + timedelta(
        hours=1, minutes=1
    )
    for minute in range(5):
        with time_machine.travel(start + timedelta(minutes=minute)):
            answer = ask_reset(Client(), ada.email, committed)
        assert answer.status_code == 303

    assert len(mail.outbox) == 3


def test_asking_too_often_for_one_address_is_throttled(db, committed):
    for _ in range(5):
        assert ask_reset(Client(), "ghost@nowhere.ng", committed).status_code == 303

    throttled = ask_reset(Client(), "ghost@nowhere.ng", committed)

    assert throttled.status_code == 429
    assert "Too many requests" in text(throttled)


# --- the API ----------------------------------------------------------------------


def test_the_api_answers_the_same_for_a_known_and_an_unknown_address(
    ada, api, committed
):
    with committed():
        known = api.post(RESET_API, {"email": ada.email}, format="json")
    with committed():
        unknown = api.post(RESET_API, {"email": "ghost@nowhere.ng"}, format="json")

    assert known.status_code == unknown.status_code == 200
    assert known.json() == unknown.json()
    assert known.json()["ok"] is True
    assert len(mail.outbox) == 1
    assert mail.outbox[0].to == [ada.email]


def test_the_api_is_rate_limited_per_address(db, api):
    for _ in range(5):
        answer = api.post(RESET_API, {"email": "x@y.ng"}, format="json")
        assert answer.status_code == 200

    throttled = api.post(RESET_API, {"email": "x@y.ng"}, format="json")

    assert throttled.status_code == 429
    assert throttled.json()["error"]["code"] == "rate_limited"
    assert "Retry-After" in throttled


def test_the_api_refuses_a_body_without_an_address(db, api):
    response = api.post(RESET_API, {"email": "not an address"}, format="json")

    assert response.status_code == 400


def test_a_reset_from_the_api_link_ends_earlier_tokens(ada, api, committed):
    old = api.post(
        "/api/v1/auth/customer/login",
        {"email": ada.email, "password": PASSWORD},
        format="json",
    ).json()["data"]
    with committed():
        api.post(RESET_API, {"email": ada.email}, format="json")

    set_new_password(Client(), reset_link(mail.outbox[0]))

    assert api.get("/api/v1/customers/me", **bearer(old["access"])).status_code == 401


# --- signing in with a code -------------------------------------------------------


def test_a_code_signs_in_like_a_password(ada, committed, sms_outbox):
    client = Client()

    asked = ask_code(client, ada.email, committed)

    assert asked.status_code == 303
    assert asked["Location"] == "/account/login/code/enter/"
    (email,) = mail.outbox
    (sms,) = sms_outbox
    assert email.to == [ada.email]
    assert sms.to == ada.sms_phone
    code = code_in(email)
    assert code in sms.body
    form = client.get("/account/login/code/enter/")
    assert ada.email in text(form)  # filled in from the step before
    signed_in = enter_code(client, ada.email, code)
    assert signed_in.status_code == 303
    assert signed_in["Location"] == "/account/"
    assert client.get("/account/").status_code == 200


def test_a_code_is_recorded_once_per_channel(ada, committed, sms_outbox):
    ask_code(Client(), ada.email, committed)

    messages = Message.objects.filter(kind=Message.Kind.SIGN_IN_CODE)
    assert sorted(m.channel for m in messages) == ["email", "sms"]
    assert {m.status for m in messages} == {Message.Status.SENT}
    (row,) = SignInCode.objects.filter(customer=ada)
    assert {m.subject for m in messages} == {f"sc_{row.pk}"}
    assert code_in(mail.outbox[0]) not in row.code_hash


def test_without_a_mobile_number_the_code_goes_by_email_only(db, committed, sms_outbox):
    customer = CustomerFactory()

    ask_code(Client(), customer.email, committed)

    assert len(mail.outbox) == 1
    assert sms_outbox == []


def test_a_code_keeps_next(ada, committed):
    client = Client()
    with committed():
        asked = client.post(
            "/account/login/code/?next=/account/profile/", {"email": ada.email}
        )
    enter = "/account/login/code/enter/?next=%2Faccount%2Fprofile%2F"
    assert asked["Location"] == enter

    signed_in = client.post(
        asked["Location"], {"email": ada.email, "code": code_in(mail.outbox[0])}
    )

    assert signed_in["Location"] == "/account/profile/"


def test_a_code_for_an_unknown_address_looks_the_same_and_sends_nothing(
    ada, committed, sms_outbox
):
    known = ask_code(Client(), ada.email, committed)
    mail.outbox.clear()
    sms_outbox.clear()

    client = Client()
    unknown = ask_code(client, "ghost@nowhere.ng", committed)

    assert unknown.status_code == known.status_code == 303
    assert unknown["Location"] == known["Location"]
    assert mail.outbox == [] and sms_outbox == []
    refused = enter_code(client, "ghost@nowhere.ng", "123456")
    assert refused.status_code == 401
    assert "That code is not right" in text(refused)


def test_a_code_works_once(ada, committed):
    ask_code(Client(), ada.email, committed)
    code = code_in(mail.outbox[0])
    assert enter_code(Client(), ada.email, code).status_code == 303

    again = enter_code(Client(), ada.email, code)

    assert again.status_code == 401


def test_a_code_expires_after_ten_minutes(ada, committed):
    ask_code(Client(), ada.email, committed)
    code = code_in(mail.outbox[0])

    with time_machine.travel(timezone.now() + timedelta(minutes=10, seconds=1)):
        late = enter_code(Client(), ada.email, code)

    assert late.status_code == 401
    with time_machine.travel(timezone.now() + timedelta(minutes=9)):
        assert enter_code(Client(), ada.email, code).status_code == 303


def test_five_wrong_tries_lock_the_code(ada, committed):
    ask_code(Client(), ada.email, committed)
    code = code_in(mail.outbox[0])
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"

    assert not any(sign_in_code_check(customer=ada, code=wrong) for _ in range(5))

    assert sign_in_code_check(customer=ada, code=code) is False


def test_a_new_code_ends_the_one_before(ada, committed):
    with committed():
        sign_in_code_send(customer=ada)
    first = code_in(mail.outbox[-1])
    with committed():
        sign_in_code_send(customer=ada)
    second = code_in(mail.outbox[-1])

    if first != second:  # one chance in a million they are the same digits
        assert sign_in_code_check(customer=ada, code=first) is False
    assert sign_in_code_check(customer=ada, code=second) is True


def test_code_sign_in_has_the_password_sign_in_throttle(ada, committed):
    ask_code(Client(), ada.email, committed)
    code = code_in(mail.outbox[0])
    for _ in range(3):
        assert enter_code(Client(), ada.email, "000000").status_code in (401, 303)
    for _ in range(2):
        Client().post("/account/login/", {"email": ada.email, "password": "wrong!"})

    throttled = enter_code(Client(), ada.email, code)

    assert throttled.status_code == 429
    assert "Too many failed sign-ins" in text(throttled)


def test_a_code_for_paying_does_not_sign_in(ada, committed):
    with committed():
        sign_in_code_send(customer=ada, purpose=SignInCode.Purpose.PAY)
    code = code_in(mail.outbox[0])
    assert "pay with a saved card" in mail.outbox[0].body

    assert enter_code(Client(), ada.email, code).status_code == 401
    assert (
        sign_in_code_check(customer=ada, code=code, purpose=SignInCode.Purpose.PAY)
        is True
    )


def test_at_most_five_codes_an_hour_are_sent(ada, committed):
    with committed():
        sent = [sign_in_code_send(customer=ada) for _ in range(6)]

    assert sent == [True] * 5 + [False]
    assert len(mail.outbox) == 5


def test_the_sign_in_page_offers_a_code_and_a_password_reset(db):
    page = text(Client().get("/account/login/"))

    assert 'href="/account/login/code/"' in page
    assert 'href="/account/password-reset/"' in page


@pytest.mark.parametrize(
    "path",
    ["/account/login/code/", "/account/login/code/enter/", "/account/password-reset/"],
)
def test_the_pages_show_their_form(db, path):
    response = Client().get(path)

    assert response.status_code == 200
    assert 'name="email"' in text(response)
