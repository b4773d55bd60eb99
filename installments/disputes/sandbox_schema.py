"""The sandbox's resolve call of a dispute (its representation is the one
`GET /api/v1/disputes/{id}` answers)."""

from drf_spectacular.utils import extend_schema, extend_schema_view

from config.api.request_fields import describe_fields
from config.api.schema import (
    errors,
    ok_envelope,
    path_id,
)

from . import sandbox
from .schema import DISPUTE

extend_schema_view(
    post=extend_schema(
        operation_id="sandbox_dispute_resolve",
        summary="Sandbox: the customer's bank decides a dispute",
        description="On a service that runs the sandbox processor, with either "
        "key; on one whose live processor is real, with a test key only, on test "
        "data (a live "
        "key is a 403 `live_mode_forbidden`: [test mode](/docs/test-mode/)). "
        "With the API key of the dispute's merchant: the bank decides "
        "an open dispute now, as the processor's `charge.dispute.resolve` (checked "
        "again, like Paystack's). `won`: the held amount returns to your wallet, "
        "the plan collects again and `dispute.won` is sent; `lost`: the amount is "
        "charged back (the platform gives back its fee on it), the plan waits "
        "`disputed` and `dispute.lost` is sent. Answers the dispute. A dispute "
        "already decided or accepted is 409 `dispute_not_open`; one never answered "
        "and past its deadline is 409 `dispute_deadline_passed` (it is lost). A "
        "charge made with the sandbox's disputed card `4084080000007777` is "
        "disputed a minute after it succeeded. See /docs/sandbox/.",
        request=sandbox.SandboxResolveInput,
        parameters=[path_id("dispute_id", "dp", "The dispute's identifier")],
        responses={200: ok_envelope(DISPUTE), **errors(409)},
    )
)(sandbox.SandboxDisputeResolveApi)
describe_fields(
    sandbox.SandboxResolveInput,
    outcome={
        "description": "`won`: the bank decides for you; `lost`: for the customer."
    },
)
