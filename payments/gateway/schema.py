"""OpenAPI description of the inbound processor endpoints (24: charge, transfer
and refund events; 25: revocations); imported by payments/schema.py."""

from drf_spectacular.utils import extend_schema, extend_schema_view

from config.api.schema import (
    PROCESSOR_SIGNATURE,
    component,
    obj,
    ok_envelope,
    string,
)

from . import api

PAYSTACK_EVENT = component(
    "ProcessorPaystackEvent",
    obj(
        {
            "event": string(
                "`charge.success`, `transfer.success`, `transfer.failed`, "
                "`transfer.reversed` or `refund.processed`; other events are "
                "stored and ignored."
            ),
            "data": {
                "type": "object",
                "description": "The processor's payload; its `reference` is "
                "re-verified with the processor before any money moves.",
                "additionalProperties": True,
            },
        }
    ),
)

extend_schema_view(
    post=extend_schema(
        operation_id="processor_paystack_event",
        summary="Payment processor callback: charge, transfer and refund events",
        description="Called by the payment processor, never by merchants. The "
        "signature is verified first (401 `invalid_signature`; a refused body is not "
        "kept), then the request is stored; a signed body that is not an event (not "
        "JSON, nested too deeply, not `{event, data}`) is 400, a good one is "
        "answered 200 at once and the event is handled after the reply, once per "
        "event and reference.",
        auth=PROCESSOR_SIGNATURE,
        request={"application/json": PAYSTACK_EVENT},
        responses={200: ok_envelope(message=string(enum=["accepted"]))},
    )
)(api.PaystackWebhookApi)


REVOCATION_EVENT = component(
    "ProcessorRevocationEvent",
    obj(
        {
            "event": string(
                "`authorization.revoked`, `mandate.cancelled` or "
                "`direct_debit.authorization.deactivated`; other events are "
                "acknowledged and ignored."
            ),
            "data": {
                "type": "object",
                "description": "Names the `authorization_code` (or "
                "`authorization.authorization_code`) and, when known, the "
                "customer's e-mail.",
                "additionalProperties": True,
            },
        }
    ),
)

extend_schema_view(
    post=extend_schema(
        operation_id="processor_revocation_event",
        summary="Payment processor callback: revoked mandates and cards",
        description="Called by the payment processor, never by merchants. The "
        "signature is verified first (401 `invalid_signature`; a refused body is not "
        "kept), then the request is stored and the event handled once. A signed body "
        "that is not a revocation event it can read (not JSON, nested too deeply, "
        "not an object) is 400.",
        auth=PROCESSOR_SIGNATURE,
        request={"application/json": REVOCATION_EVENT},
        responses={
            200: ok_envelope(
                message=string(enum=["handled", "duplicate", "ignored"]),
            ),
        },
    )
)(api.PaymentGatewayWebhookApi)
