"""E-mails to merchants; always sent after the transaction commits."""

from django.conf import settings
from django.core.mail import send_mail


def _send(merchant_email: str, subject: str, body: str) -> None:
    send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [merchant_email])


def send_application_received(*, email: str, business_name: str) -> None:
    _send(
        email,
        "We received your merchant application",
        f"Hello {business_name},\n\nThank you for applying. We review every "
        "application within 24 hours and will e-mail you when your account is "
        "approved.\n",
    )


def send_approved(*, email: str, business_name: str, merchant_id: str) -> None:
    _send(
        email,
        "Your merchant account is approved",
        f"Hello {business_name},\n\nYour merchant account {merchant_id} is approved. "
        "Once API access is enabled you can generate your API key in the dashboard "
        f"at {settings.BASE_URL}/dashboard/keys/ or with the rotate-api-key "
        "endpoint.\n",
    )


def send_api_access_enabled(*, email: str, business_name: str) -> None:
    _send(
        email,
        "API access enabled",
        f"Hello {business_name},\n\nAPI access is now enabled for your account. "
        "Generate your API key in the dashboard or with the rotate-api-key endpoint; "
        "it is shown once.\n",
    )


def send_suspended(*, email: str, business_name: str) -> None:
    _send(
        email,
        "Your merchant account is suspended",
        f"Hello {business_name},\n\nYour merchant account is suspended: API requests "
        "are refused until it is reinstated. Nothing was deleted. Reply to this "
        "e-mail to contact us.\n",
    )


def send_password_reset(*, email: str, business_name: str, link: str) -> None:
    _send(
        email,
        "Reset your dashboard password",
        f"Hello {business_name},\n\nSomeone asked to reset the password of your "
        f"merchant account. To choose a new password, open this link:\n\n{link}\n\n"
        f"The link works once and expires in {_reset_link_lifetime()}. If you did "
        "not ask for it, ignore this e-mail: your password stays as it is.\n",
    )


def _reset_link_lifetime() -> str:
    hours = settings.PASSWORD_RESET_TIMEOUT // 3600
    return f"{hours // 24} days" if hours >= 48 else f"{hours} hours"
