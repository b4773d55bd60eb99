"""OpenAPI description of the pay-link endpoint."""

from drf_spectacular.utils import extend_schema, extend_schema_view

from config.api.schema import (
    LIVEMODE,
    TIMESTAMP,
    component,
    errors,
    obj,
    ok_envelope,
    path_id,
    string,
)

from . import api

PAY_LINK = component(
    "PayLink",
    obj(
        {
            "url": string(
                "The link to the plan's pay page, to send to your customer. Shown "
                "only in this answer: we keep a digest of it, never the link.",
                format="uri",
            ),
            "expires_at": TIMESTAMP,
            "livemode": LIVEMODE,
        }
    ),
)

extend_schema_view(
    post=extend_schema(
        operation_id="payment_plan_pay_link_create",
        summary="Create a pay link for a plan",
        description="With the API key of the plan's merchant (a customer's token "
        "is refused: 403); anyone else's plan is a 404. The link opens the plan's "
        "pay page without signing in, for 7 days: your customer sees your "
        "business name, the order reference, what is due or overdue and the "
        "balance, never their e-mail address or phone number. Send it through "
        "your own channels; our reminders and notices carry links of their own. "
        "A plan with nothing to pay now (paid, not active, or being collected) "
        "is a 409 `plan_not_collectable`. See /docs/paying/ for the page.",
        request=None,
        parameters=[path_id("plan_id", "plan", "The plan's identifier")],
        responses={201: ok_envelope(PAY_LINK), **errors(409)},
    )
)(api.PlanPayLinksApi)
