"""SMS backends chosen by SMS_URL (config/sms/): the console prints, locmem
keeps, Termii sends its documented JSON over HTTPS with timeouts and says
plainly when a message was refused or may not have gone."""

import json

import pytest
import requests
import responses
from django.core.exceptions import ImproperlyConfigured
from urllib3.exceptions import MaxRetryError, NewConnectionError

from config import sms
from config.sms import SmsError, SmsMessage, SmsNotSent, backend_from_url, sms_send
from config.sms.termii import TermiiBackend

TERMII_URL = "https://api.ng.termii.com/api/sms/send"
MESSAGE = SmsMessage(to="+2348031234567", body="Your installment is due soon.")


def test_console_is_the_default_backend_and_prints_the_message(settings, capsys):
    settings.SMS_URL = "console://"

    assert sms_send(to="+2348031234567", body="Hello Ada, NGN 583.34 is due.") == ""

    printed = capsys.readouterr().out
    assert "SMS to: +2348031234567" in printed
    assert "Hello Ada, NGN 583.34 is due." in printed
    assert printed.endswith("-" * 79 + "\n")


def test_the_settings_default_is_the_console():
    from config import settings as real_settings

    assert real_settings.SMS_URL == "console://"


def test_locmem_keeps_the_messages_in_the_outbox(settings, sms_outbox):
    settings.SMS_URL = "locmem://"

    sms_send(to="+2348031234567", body="one")

    assert sms_outbox == [SmsMessage(to="+2348031234567", body="one")]


def test_a_termii_url_gives_the_key_the_sender_as_written_and_the_options():
    backend = backend_from_url(
        "termii://TLk3y%2Bsecret@ShopNG?channel=generic&host=v3.api.termii.com"
    )

    assert isinstance(backend, TermiiBackend)
    assert backend.api_key == "TLk3y+secret"
    assert backend.sender_id == "ShopNG"  # not lower-cased
    assert backend.channel == "generic"
    assert backend.url == "https://v3.api.termii.com/api/sms/send"


def test_termii_defaults_to_the_transactional_route_on_the_nigerian_host():
    backend = backend_from_url("termii://key@Installmnt")

    assert (backend.channel, backend.url) == ("dnd", TERMII_URL)


@pytest.mark.parametrize(
    "url", ["termii://ShopNG", "termii://key@", "twilio://sid:token@x", "smtp://x"]
)
def test_an_unusable_sms_url_is_a_configuration_error(url):
    with pytest.raises(ImproperlyConfigured):
        backend_from_url(url)


def termii() -> TermiiBackend:
    return TermiiBackend(api_key="TLkey", sender_id="ShopNG")


@responses.activate
def test_termii_sends_the_documented_body_with_timeouts_and_returns_the_id():
    responses.post(
        TERMII_URL,
        json={
            "message_id": "9122821270554876574",
            "message": "Successfully Sent",
            "balance": 9,
            "user": "Peter Mcleish",
        },
    )

    assert termii().send(MESSAGE) == "9122821270554876574"

    (call,) = responses.calls
    assert json.loads(call.request.body) == {
        "api_key": "TLkey",
        "to": "2348031234567",
        "from": "ShopNG",
        "sms": "Your installment is due soon.",
        "type": "plain",
        "channel": "dnd",
    }
    assert call.request.headers["Content-Type"] == "application/json"
    assert call.request.req_kwargs["timeout"] == (5, 15)


@responses.activate
def test_a_termii_refusal_is_an_error_with_its_reason():
    responses.post(TERMII_URL, status=401, json={"message": "Invalid API key"})

    with pytest.raises(SmsError, match=r"refused the message \(401: Invalid API key\)"):
        termii().send(MESSAGE)


@responses.activate
def test_a_termii_refusal_without_a_json_body_is_still_an_error():
    responses.post(TERMII_URL, status=400, body="<html>Bad Request</html>")

    with pytest.raises(SmsError, match="refused the message"):
        termii().send(MESSAGE)


@responses.activate
def test_a_termii_timeout_says_the_message_may_have_gone():
    responses.post(TERMII_URL, body=requests.ReadTimeout("read timed out"))

    with pytest.raises(SmsError, match="may or may not have been sent") as raised:
        termii().send(MESSAGE)

    assert "TLkey" not in str(raised.value)
    assert len(responses.calls) == 1  # sent once, never retried


@responses.activate
def test_termii_unreachable_is_an_error():
    responses.post(TERMII_URL, body=requests.ConnectionError("refused"))

    with pytest.raises(SmsError, match="could not be reached"):
        termii().send(MESSAGE)


@responses.activate
@pytest.mark.parametrize(
    "error",
    [
        requests.ConnectionError(
            MaxRetryError(None, TERMII_URL, NewConnectionError(None, "refused"))
        ),
        requests.ConnectTimeout("connect timed out"),
    ],
    ids=["refused", "connect-timeout"],
)
def test_termii_never_connected_says_the_message_was_not_sent(error):
    """Only then may the caller send it again (the messages sweep does)."""
    responses.post(TERMII_URL, body=error)

    with pytest.raises(SmsNotSent, match="could not be reached"):
        termii().send(MESSAGE)


@responses.activate
@pytest.mark.parametrize(
    "error",
    [requests.ReadTimeout("read timed out"), requests.ConnectionError("reset")],
    ids=["read-timeout", "connection-broke"],
)
def test_termii_after_the_request_went_out_is_not_a_sure_not_sent(error):
    responses.post(TERMII_URL, body=error)

    with pytest.raises(SmsError) as raised:
        termii().send(MESSAGE)

    assert not isinstance(raised.value, SmsNotSent)


@responses.activate
def test_a_termii_answer_without_a_message_id_is_not_taken_as_sent():
    responses.post(TERMII_URL, json={"message": "Insufficient balance"})

    with pytest.raises(SmsError, match="without a message id"):
        termii().send(MESSAGE)


@responses.activate
def test_sms_send_uses_the_backend_sms_url_names(settings):
    settings.SMS_URL = "termii://TLkey@ShopNG"
    responses.post(
        TERMII_URL, json={"message_id": "42", "message": "Successfully Sent"}
    )

    assert sms_send(to="+2348031234567", body="hi") == "42"
    assert sms.outbox == []


def test_an_unknown_sms_url_scheme_stops_the_service_at_start_up():
    from .production import manage

    result = manage("check", SMS_URL="twilio://sid:token@x")

    assert result.returncode != 0
    assert "SMS_URL must start with console://, locmem:// or termii://" in (
        result.stderr
    )
