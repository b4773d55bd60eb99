"""HTTP in/out for the sandbox's time travel (`collect-next`), clock
(`advance`) and pending bank transfer or USSD payments (`complete`,
`expire`): the plan's merchant with its API key, on the sandbox processor
only."""

from django.conf import settings
from django.http import Http404
from rest_framework.views import APIView

from config.api import responses
from config.api.permissions import accepts
from merchants.authentication import resolve_merchant

from ..early.sandbox import sandbox_payment_find
from ..plans import selectors
from ..plans.serializers import plan_output
from .sandbox_clock import plan_advance
from .serializers import AdvanceInput, SandboxCompleteInput
from .time_travel import plan_collect_next


class SandboxApi(APIView):
    """A sandbox-only endpoint: API key of the plan's merchant; on a live
    processor the path does not exist (404, before authentication)."""

    permission_classes = [accepts("api_key")]

    def initial(self, request, *args, **kwargs):
        if settings.PROCESSOR != "sandbox":
            raise Http404("Sandbox time travel exists only on the sandbox processor.")
        super().initial(request, *args, **kwargs)


class SandboxCollectNextApi(SandboxApi):
    """`POST /api/v1/sandbox/payment-plans/<plan_id>/collect-next`: collect the
    next installment now, answer the plan."""

    def post(self, request, plan_id):
        merchant = resolve_merchant(request)
        plan = selectors.plan_of_merchant(merchant, plan_id)
        return responses.ok(plan_output(plan_collect_next(plan=plan)))


class SandboxAdvanceApi(SandboxApi):
    """`POST /api/v1/sandbox/payment-plans/<plan_id>/advance` `{to}`: the
    sandbox clock runs the plan's life up to the end of that Lagos date; answer
    the plan and, beside it, what each day did."""

    def post(self, request, plan_id):
        merchant = resolve_merchant(request)
        plan = selectors.plan_of_merchant(merchant, plan_id)
        data = AdvanceInput.validated(request.data)
        advanced, days = plan_advance(plan=plan, to=data["to"])
        return responses.ok(
            plan_output(advanced),
            advance={
                "to": data["to"].isoformat(),
                "days": [day.as_dict() for day in days],
            },
        )


class SandboxPaymentCompleteApi(SandboxApi):
    """`POST /api/v1/sandbox/payments/<payment_id>/complete` `{amount?}`: the
    customer pays the pending transfer or USSD payment; answer it."""

    def post(self, request, payment_id):
        kind, payment = sandbox_payment_find(resolve_merchant(request), payment_id)
        data = SandboxCompleteInput.validated(request.data)
        payment = kind.complete(payment, data.get("amount"))
        return responses.ok({"payment": kind.output(payment)})


class SandboxPaymentExpireApi(SandboxApi):
    """`POST /api/v1/sandbox/payments/<payment_id>/expire`: the pending
    transfer or USSD payment's time runs out now; answer it."""

    def post(self, request, payment_id):
        kind, payment = sandbox_payment_find(resolve_merchant(request), payment_id)
        return responses.ok({"payment": kind.output(kind.expire(payment))})
