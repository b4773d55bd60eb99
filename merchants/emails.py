"""E-mails to merchants; always sent after the transaction commits.

None of them greets the recipient by the business name or repeats it: anyone may
sign up with any e-mail address and any name, so a name in these e-mails would
be a stranger's words in our mouth, sent to an inbox of the stranger's choosing.
"""

from django.conf import settings
from django.core.mail import send_mail


def _send(merchant_email: str, subject: str, body: str) -> None:
    send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [merchant_email])


def _dashboard(path: str = "") -> str:
    return f"{settings.BASE_URL}/dashboard/{path}"


def send_application_received(*, email: str) -> None:
    _send(
        email,
        "We received your merchant application",
        "Hello,\n\nThank you for applying for a merchant account with this e-mail "
        "address. We review every application within 24 hours and will e-mail you "
        "when your account is approved. Meanwhile you can sign in at "
        f"{_dashboard('login/')} and prepare your settings.\n\n"
        "If you did not apply, reply to this e-mail and we will close the "
        "application.\n",
    )


def send_sign_up_attempted(*, email: str) -> None:
    """To the owner of an account whose address someone signed up with on the
    web form (which answered as for a new account, so as not to tell)."""
    _send(
        email,
        "Someone tried to sign up with your e-mail address",
        "Hello,\n\nSomeone tried to create a new merchant account with this e-mail "
        "address, which already has one. No new account was created and "
        "nothing about your account changed.\n\n"
        f"If it was you, sign in at {_dashboard('login/')}; if you forgot your "
        f"password, choose a new one at {_dashboard('password-reset/')}. If it "
        "was not you, you need do nothing.\n",
    )


def send_approved(*, email: str, merchant_id: str) -> None:
    _send(
        email,
        "Your merchant account is approved",
        f"Hello,\n\nYour merchant account {merchant_id} is approved. "
        "Once API access is enabled you can generate your API key in the dashboard "
        f"at {_dashboard('keys/')} or with the rotate-api-key endpoint.\n",
    )


def send_api_access_enabled(*, email: str) -> None:
    _send(
        email,
        "API access enabled",
        "Hello,\n\nAPI access is now enabled for your account. "
        "Generate your API key in the dashboard or with the rotate-api-key endpoint; "
        "it is shown once.\n",
    )


def send_suspended(*, email: str) -> None:
    _send(
        email,
        "Your merchant account is suspended",
        "Hello,\n\nYour merchant account is suspended: API requests "
        "are refused until it is reinstated. Nothing was deleted. Reply to this "
        "e-mail to contact us.\n",
    )


def send_password_reset(*, email: str, link: str) -> None:
    _send(
        email,
        "Reset your dashboard password",
        "Hello,\n\nSomeone asked to reset the password of your "
        f"merchant account. To choose a new password, open this link:\n\n{link}\n\n"
        f"The link works once and expires in {_reset_link_lifetime()}. If you did "
        "not ask for it, ignore this e-mail: your password stays as it is.\n",
    )


def _reset_link_lifetime() -> str:
    hours = settings.PASSWORD_RESET_TIMEOUT // 3600
    return f"{hours // 24} days" if hours >= 48 else f"{hours} hours"


def send_invitation(*, email: str, link: str, role: str, hours: int) -> None:
    """No business name (see the module's note): the link's page shows which
    account the invitation is to, once the invitee follows it."""
    _send(
        email,
        "You are invited to a merchant team",
        "Hello,\n\nA member of a merchant account invited you to join its team "
        f"as {role}. Choose your password and join at:\n\n{link}\n\n"
        f"The link works once and expires in {hours} hours. If you do not know "
        "why you received this, ignore it: nothing happens without the link.\n",
    )
