"""What a customer's password-reset e-mail and one-time code (e-mail and SMS)
say; recorded and sent by notifications/ like every other message."""

from payments.customers.models import SignInCode

from ..notifications.emails import hello
from ..notifications.models import Message
from ..notifications.outgoing import Outgoing, both

Kind = Message.Kind
Channel = Message.Channel


def password_reset(link) -> list[Outgoing]:
    """`link` a payments.customers.resets.ResetLink: by e-mail only (DESIGN 17),
    whose body is the link itself."""
    customer = link.customer
    return [
        Outgoing(
            Kind.PASSWORD_RESET,
            f"{customer.public_id}_{link.mark}",
            Channel.EMAIL,
            customer.pk,
            customer.email,
            "Reset your password",
            (
                f"{hello(customer)}\n\n"
                "Someone asked to reset the password of your account. To choose "
                f"a new password, open this link:\n{link.url}\n\n"
                "The link works once and expires in 1 hour. Setting a new "
                "password signs you out everywhere else. If you did not ask for "
                "this, ignore this e-mail: your password stays as it is.\n"
            ),
        )
    ]


def sign_in_code(row, code: str, *, customer) -> list[Outgoing]:
    """The one-time code of `row` (a payments.customers.models.SignInCode),
    `code` its digits, by e-mail and, with a mobile number on file, SMS."""
    minutes = round((row.expires_at - row.created_at).total_seconds() / 60)
    what = (
        "pay with a saved card or bank account"
        if row.purpose == SignInCode.Purpose.PAY
        else "sign in to your account"
    )
    return both(
        kind=Kind.SIGN_IN_CODE,
        subject=f"sc_{row.pk}",
        customer=customer,
        title="Your one-time code",
        email=(
            f"{hello(customer)}\n\n"
            f"Your one-time code to {what} is:\n\n{code}\n\n"
            f"It works once, for {minutes} minutes. A newer code replaces it. "
            "Never share it: we will never ask you for it. If you did not ask "
            "for it, ignore this e-mail.\n"
        ),
        sms=(
            f"Your code to {what}: {code}. It works once, for {minutes} "
            "minutes. Never share it."
        ),
    )
