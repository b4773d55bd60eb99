"""The sandbox's time travel (`collect-next`), clock (`advance`) and its hands
on pending bank transfer and USSD payments (`complete`, `expire`)."""

from drf_spectacular.utils import extend_schema, extend_schema_view

from config.api.request_fields import describe_fields
from config.api.schema import (
    DATE,
    component,
    errors,
    obj,
    ok_envelope,
    path_id,
)

from ..early.schema import PAYMENT_ENVELOPE
from ..plans.schema import PAYMENT_PLAN
from . import api
from .serializers import AdvanceInput, SandboxCompleteInput

extend_schema_view(
    post=extend_schema(
        operation_id="sandbox_plan_collect_next",
        summary="Sandbox time travel: collect the plan's next installment now",
        description="On a service that runs the sandbox processor, with either "
        "key; on one whose live processor is real, with a test key only, on test "
        "data (a live "
        "key is a 403 `live_mode_forbidden`: [test mode](/docs/test-mode/)). "
        "With the API key of the plan's merchant: makes the next unpaid "
        "installment due now and collects it, so the merchant sees installment.paid, "
        "payment.failed, goods.release and completion without waiting. A plan with "
        "nothing left to collect is a 409 plan_not_collectable, and so, for a "
        "moment, is one whose next installment is being collected or which a "
        "refund, cancellation, reschedule or early payment is changing (the "
        "message says which).",
        request=None,
        parameters=[path_id("plan_id", "plan", "The plan's identifier")],
        responses={200: ok_envelope(PAYMENT_PLAN), **errors(409)},
    )
)(api.SandboxCollectNextApi)


def count(description: str) -> dict:
    return {"type": "integer", "minimum": 0, "description": description}


ADVANCE_DAY = component(
    "SandboxAdvanceDay",
    obj(
        {
            "date": DATE,
            "reminders_sent": count("Reminder messages sent (e-mails and texts)."),
            "attempts": count("Collection attempts made (each charged once)."),
            "paid": count("Installments paid."),
            "failed": count("Attempts that failed (including those below)."),
            "action_required": count(
                "Installments now waiting for the customer to add a payment method."
            ),
            "defaulted": count("Installments defaulted (the plan with them)."),
            "notices_sent": count(
                "Requests to add a payment method sent (e-mails and texts)."
            ),
            "receipts_sent": count("Receipt messages sent (e-mails and texts)."),
        }
    ),
)

extend_schema_view(
    post=extend_schema(
        operation_id="sandbox_plan_advance",
        summary="Sandbox clock: run the plan's life up to a date",
        description="On a service that runs the sandbox processor, with either "
        "key; on one whose live processor is real, with a test key only, on test "
        "data (a live "
        "key is a 403 `live_mode_forbidden`: [test mode](/docs/test-mode/)). "
        "With the API key of the plan's merchant: runs everything that "
        "would happen to the plan up to the end of the Lagos date `to`, day by day "
        "in date order (reminders, collections on due dates, retries, the wait for "
        "a payment method after a hard decline, default, receipts), through the "
        "same engine as the schedule: the same events, webhooks, ledger and "
        "messages. Answers the plan and, in `advance.days`, what each day did. "
        "`to` may be today up to 60 days after the plan's last due date (422 "
        "advance_date_out_of_range otherwise); advancing again to the same or an "
        "earlier date changes nothing. A plan whose deposit is not paid is a 409 "
        "plan_not_collectable; while another advance of the plan runs, 409 "
        "plan_busy. See /docs/sandbox/.",
        request=AdvanceInput,
        parameters=[path_id("plan_id", "plan", "The plan's identifier")],
        responses={
            200: ok_envelope(
                PAYMENT_PLAN,
                advance=obj(
                    {
                        "to": DATE,
                        "days": {"type": "array", "items": ADVANCE_DAY},
                    }
                ),
            ),
            **errors(409, 422),
        },
    )
)(api.SandboxAdvanceApi)
describe_fields(
    AdvanceInput,
    to={
        "description": "The Lagos date (YYYY-MM-DD) to run the plan to, "
        "inclusive: from today up to 60 days after the plan's last due date."
    },
)


PAYMENT_ID = path_id(
    "payment_id", "pay", "The pending payment's identifier, from the 202 of paying"
)

extend_schema_view(
    post=extend_schema(
        operation_id="sandbox_payment_complete",
        summary="Sandbox: the customer pays a pending bank transfer or USSD payment",
        description="On a service that runs the sandbox processor, with either "
        "key; on one whose live processor is real, with a test key only, on test "
        "data (a live "
        "key is a 403 `live_mode_forbidden`: [test mode](/docs/test-mode/)). "
        "With the API key of the payment's plan's merchant: the "
        "customer's money lands, as the processor's `charge.success` (checked "
        "again, like Paystack's), so the payment `succeeded`, its installments "
        "are `paid` and `installment.paid` is sent with `channel`. `amount` (kobo) "
        "is what the customer sends, the payment's own amount when left out: "
        "another amount is refused (422 `amount_mismatch`) and nothing changes, "
        "as Paystack returns such a transfer. A payment that expired is 409 "
        "`payment_expired` (the money is not applied); one already paid or "
        "declined 409 `payment_not_pending`. Nothing else completes a sandbox "
        "payment. See /docs/sandbox/.",
        request=SandboxCompleteInput,
        parameters=[PAYMENT_ID],
        responses={200: PAYMENT_ENVELOPE, **errors(409, 422)},
    )
)(api.SandboxPaymentCompleteApi)
describe_fields(
    SandboxCompleteInput,
    amount={
        "description": "The kobo the customer sends; the payment's amount when "
        "left out (another amount is refused)."
    },
)

extend_schema_view(
    post=extend_schema(
        operation_id="sandbox_payment_expire",
        summary="Sandbox: a pending bank transfer or USSD payment runs out now",
        description="On a service that runs the sandbox processor, with either "
        "key; on one whose live processor is real, with a test key only, on test "
        "data (a live "
        "key is a 403 `live_mode_forbidden`: [test mode](/docs/test-mode/)). "
        "With the API key of the payment's plan's merchant: the "
        "payment ends now, as it would after its 30 minutes: `expired`, every "
        "installment back exactly as it was, and `payment.failed` with the reason "
        "`expired` once. A payment no longer pending is 409 `payment_expired` or "
        "`payment_not_pending`. See /docs/sandbox/.",
        request=None,
        parameters=[PAYMENT_ID],
        responses={200: PAYMENT_ENVELOPE, **errors(409)},
    )
)(api.SandboxPaymentExpireApi)
