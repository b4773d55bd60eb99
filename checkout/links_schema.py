"""OpenAPI description of the payment link endpoints (4-6; camelCase
answers), imported by checkout/schema.py."""

from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view

from config.api.schema import (
    KOBO,
    LIVEMODE,
    PAGINATION,
    TIMESTAMP,
    component,
    errors,
    list_envelope,
    nullable,
    obj,
    ok_envelope,
    path_id,
    string,
)

from . import api
from .serializers import PaymentLinkCreateInput, PaymentLinkToggleInput

# --- payment links (endpoints 4-6; camelCase answers) ---

PAYMENT_LINK = component(
    "PaymentLink",
    obj(
        {
            "id": string("`pl_...`"),
            "livemode": LIVEMODE,
            "slug": string("Short public token of the link."),
            "publicUrl": string(
                "The consumer address plus `/l/<slug>`: share it.", format="uri"
            ),
            "merchantId": string("`mer_...`"),
            "title": string(),
            "description": nullable(string("Null when not set.")),
            "amount": obj(
                {"amount": KOBO, "currency": string(example="NGN")},
            ),
            "redirectUrl": nullable(
                string(
                    "Where the customer goes after paying; null: their own "
                    "account page."
                )
            ),
            "isActive": {"type": "boolean"},
            "createdAt": TIMESTAMP,
            "updatedAt": TIMESTAMP,
        }
    ),
)

extend_schema_view(
    post=extend_schema(
        operation_id="payment_link_create",
        summary="Create a payment link",
        description="Every visit of its `publicUrl` opens a fresh 30-minute "
        "checkout session for the link's title and amount. Same merchant checks as "
        "sessions; amount 10,000 to 1,000,000,000 kobo (`amount_out_of_range`), "
        "`NGN` only (`unsupported_currency`).",
        request=PaymentLinkCreateInput,
        examples=[
            OpenApiExample(
                "An office chair",
                request_only=True,
                value={
                    "merchant_id": "mer_3vQbXk2m9TzP1aLw",
                    "title": "Ergonomic office chair",
                    "amount": 4_500_000,
                    "currency": "NGN",
                    "description": "Black, with armrests",
                    "redirect_url": "https://mystore.example/thanks",
                },
            )
        ],
        responses={201: ok_envelope(PAYMENT_LINK), **errors(404)},
    )
)(api.PaymentLinkCreateApi)

extend_schema_view(
    get=extend_schema(
        operation_id="payment_links_list",
        summary="List your payment links, newest first",
        description="With `total`, the number of your links.",
        parameters=[
            path_id("merchant_id", "mer", "The merchant's identifier"),
            *PAGINATION,
        ],
        responses={200: list_envelope(PAYMENT_LINK)},
    )
)(api.PaymentLinkListApi)

extend_schema_view(
    patch=extend_schema(
        operation_id="payment_link_toggle",
        summary="Switch a payment link on or off",
        description="Another merchant's link id is a 404.",
        parameters=[path_id("link_id", "pl", "The payment link's identifier")],
        request=PaymentLinkToggleInput,
        responses={200: ok_envelope(PAYMENT_LINK)},
    )
)(api.PaymentLinkToggleApi)
