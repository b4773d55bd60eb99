"""OpenAPI description of paying early (a saved method, bank transfer or USSD)
and of reading one payment."""

from drf_spectacular.utils import extend_schema, extend_schema_view

from config.api.request_fields import describe_body, describe_fields
from config.api.schema import (
    KOBO,
    LIVEMODE,
    TIMESTAMP,
    component,
    errors,
    nullable,
    obj,
    ok_envelope,
    path_id,
    string,
)
from payments.gateway.processors.base import USSD_BANKS, PayChannel

from ..plans.schema import PAYMENT_PLAN
from . import api
from .serializers import PayEarlyInput

describe_fields(
    PayEarlyInput,
    installment_id={
        "description": "Pay this unpaid (`scheduled`, `failed` or "
        "`action_required`) installment of the plan now (`inst_...`).",
    },
    payoff={
        "description": "`true`: pay every unpaid installment now, in one charge.",
    },
    payment_method_id={
        "description": "One of your active payment methods (`pm_...`); your "
        "default method when left out. Not with `channel`.",
    },
    channel={
        "enum": list(PayChannel.OFFLINE),
        "description": "Pay without a saved method: `bank_transfer` (an account "
        "number that takes exactly this payment) or `ussd` (a code to dial, with "
        "`bank`). The answer is a 202 with the pending payment.",
    },
    bank={
        "enum": list(USSD_BANKS),
        "description": 'With `channel: "ussd"` only: the USSD code of your bank ('
        + ", ".join(f"`{code}` {name}" for code, name in USSD_BANKS.items())
        + ").",
    },
)


# One installment or the payoff (`payoff: true`), never both and never neither;
# `bank` exactly with `channel: "ussd"`; a method or a channel, not both.
# "Not false" rather than an enum of true, a pattern rather than an enum of one
# channel: drf-spectacular would move an enum here into a component of its own
# and lose it.
describe_body(
    PayEarlyInput,
    oneOf=[
        {"required": ["installment_id"]},
        {"required": ["payoff"], "not": {"properties": {"payoff": {"enum": [False]}}}},
    ],
    allOf=[
        {
            "oneOf": [
                {
                    "required": ["channel", "bank"],
                    "properties": {"channel": {"pattern": f"^{PayChannel.USSD}$"}},
                },
                {
                    "not": {"required": ["bank"]},
                    "properties": {
                        "channel": {"pattern": f"^{PayChannel.BANK_TRANSFER}$"}
                    },
                },
            ]
        },
        {"not": {"required": ["channel", "payment_method_id"]}},
    ],
)

TRANSFER = obj(
    {
        "bank_name": string("The bank of the account."),
        "account_number": string("The account to send exactly `amount` to."),
        "account_name": string("The account's name, as the customer's bank shows it."),
    }
)
USSD = obj({"code": string("The code to dial, e.g. `*737*000*1234#`.")})

PAYMENT = component(
    "EarlyPayment",
    obj(
        {
            "id": string("The payment's identifier (`pay_...`)."),
            "livemode": LIVEMODE,
            "payment_plan_id": string("Its plan (`plan_...`)."),
            "kind": string(
                "`installment` (one installment) or `payoff` (everything left).",
                enum=["installment", "payoff"],
            ),
            "installment_ids": {
                "type": "array",
                "items": string(),
                "description": "The installments it pays (`inst_...`), in order.",
            },
            "status": string(
                "`pending` (a transfer or USSD payment waiting for the customer's "
                "money; its installments are `processing`), `succeeded`, `failed` "
                "(declined) or `expired` (a transfer or USSD payment not paid in "
                "time: its installments are back as they were).",
                enum=["pending", "succeeded", "failed", "expired"],
            ),
            "channel": string(
                "How it is paid: `card`, `bank_account` (a saved method), "
                "`bank_transfer` or `ussd`.",
                enum=list(PayChannel.ALL),
            ),
            "amount": KOBO,
            "currency": string("ISO 4217; `NGN`."),
            "reference": string(
                "The processor reference: `<installment id>_p<k>`, or "
                "`<plan id>_po<k>` for a payoff."
            ),
            "expires_at": nullable(
                {
                    **TIMESTAMP,
                    "description": "A transfer or USSD payment: when the account "
                    "or code stops taking money (30 minutes after it was asked "
                    "for). Null for a saved method.",
                }
            ),
            "transfer": nullable(
                {**TRANSFER, "description": "`bank_transfer` only: where to pay."}
            ),
            "ussd": nullable({**USSD, "description": "`ussd` only: what to dial."}),
            "display_text": nullable(
                string("The processor's one-line instruction to the customer.")
            ),
            "failure_reason": nullable(
                string(
                    "Why it failed: a reason of the decline table (`expired` for "
                    "a transfer or USSD payment not paid in time)."
                )
            ),
            "created_at": TIMESTAMP,
            "settled_at": nullable(TIMESTAMP),
        }
    ),
)
PAYMENT_ENVELOPE = ok_envelope(obj({"payment": PAYMENT}))


extend_schema_view(
    post=extend_schema(
        operation_id="payment_plan_pay",
        summary="Pay early: one installment now, or everything left",
        description="With the plan's customer's JWT only (a merchant's API key may "
        "read plans, never pay them: 403); anyone else's plan is a 404. "
        "`{installment_id}` pays one unpaid installment now; `{payoff: true}` pays "
        "every unpaid installment in ONE charge. The installments are claimed "
        "like the auto-debit engine claims them, so an installment being collected "
        "is never charged twice (409 `payment_in_progress`, also while another "
        "early payment of the plan is in flight or the processor has not answered "
        "yet). Success: the installments are `paid` (one attempt each) and the "
        "plan is answered (`completed` once nothing is left). Declined: 402 "
        "`payment_failed`, and every installment is exactly as it was (status, "
        "attempts, retry time); a declined early payment never counts against "
        "the customer. 409 `installment_not_payable` for an installment that is "
        "not unpaid, `plan_not_collectable` for a plan that is not active; 422 "
        "`no_payment_method` when no method is named and none is active.\n\n"
        "**Bank transfer or USSD** (`channel`): the installments are claimed the "
        "same way and the answer is **202** with the pending payment: the account "
        "to send exactly `amount` to (`transfer`), or the code to dial (`ussd`), "
        "until `expires_at` (30 minutes). Its installments stay `processing` "
        "until the money lands (the payment `succeeded`, the installments `paid`, "
        "`installment.paid` with `channel`) or the time runs out (`expired`, "
        "every installment as it was, `payment.failed` with the reason "
        "`expired`). Read it with the payment's `GET`. A transfer of another "
        "amount, or after expiry, is not applied (the processor returns it). "
        "Refused by the processor at once: 402 `payment_failed`, nothing "
        "changed; no answer from it: 502 `processor_error`, and the payment "
        "stays pending with nothing to pay to until it expires. See "
        "/docs/payment-plans/.",
        request=PayEarlyInput,
        parameters=[path_id("plan_id", "plan", "The plan's identifier")],
        responses={
            200: ok_envelope(PAYMENT_PLAN),
            202: PAYMENT_ENVELOPE,
            **errors(402, 409, 422, 502, 504),
        },
    )
)(api.PlanPayApi)

extend_schema_view(
    get=extend_schema(
        operation_id="payment_plan_payment_get",
        summary="Read one early payment of a plan",
        description="With the plan's customer's JWT or the plan's merchant's API "
        "key; anyone else's plan, or an id that is not one of the plan's "
        "payments, is a 404. Any early payment (a saved method's, a bank "
        "transfer or USSD one): check a pending transfer or USSD payment here "
        "until it is `succeeded` or `expired`.",
        parameters=[
            path_id("plan_id", "plan", "The plan's identifier"),
            path_id("payment_id", "pay", "The payment's identifier"),
        ],
        responses={200: PAYMENT_ENVELOPE},
    )
)(api.PlanPaymentApi)
