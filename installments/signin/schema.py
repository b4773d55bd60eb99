"""OpenAPI description of the customer's password reset; imported by
installments/schema.py."""

from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view

from config.api.schema import component, errors, obj, ok_envelope, string

from . import api

PASSWORD_RESET_SENT = component(
    "CustomerPasswordResetSent",
    obj(
        {"message": string("The same words whether or not the address has an account.")}
    ),
)

extend_schema_view(
    post=extend_schema(
        operation_id="customer_password_reset",
        summary="Send a customer a password-reset link",
        description="E-mails a link to choose a new password to the customer "
        "account of `email`, if there is one. The answer is the same 200 either "
        "way, so it never tells whether an address has an account. The link works "
        "once, for 1 hour; setting the new password signs the customer out "
        "everywhere and ends every customer token issued before. At most 3 "
        "e-mails an hour reach one account; more than 5 requests an hour for one "
        "address, or too many from one client address, answer 429.",
        request=api.PasswordResetInput,
        examples=[
            OpenApiExample(
                "A forgotten password",
                request_only=True,
                value={"email": "ada@example.com"},
            )
        ],
        responses={200: ok_envelope(PASSWORD_RESET_SENT), **errors(429)},
    )
)(api.CustomerPasswordResetApi)
