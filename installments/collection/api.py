"""HTTP in/out for the sandbox's time travel (`collect-next`), clock
(`advance`) and pending bank transfer or USSD payments (`complete`,
`expire`): the plan's merchant with its API key. On a deployment with a real
processor they are for test data only (DESIGN section 21): a test key's, on
the account's test side, whose processor is always the sandbox."""

from django.conf import settings
from rest_framework.views import APIView

from config.api import responses
from config.api.permissions import accepts
from merchants.authentication import resolve_merchant
from merchants.errors import LiveModeForbidden

from ..early.sandbox import sandbox_payment_find
from ..plans import selectors
from ..plans.serializers import plan_output
from .sandbox_clock import plan_advance
from .serializers import AdvanceInput, SandboxCompleteInput
from .time_travel import plan_collect_next

SANDBOX_NEEDS_TEST_KEY = (
    "The sandbox endpoints act on test data only on this service (its live "
    "processor is real): call them with a test key (service_test_sk_)."
)


class SandboxApi(APIView):
    """A sandbox endpoint: API key of the plan's merchant. On a sandbox
    deployment either key works (each on its own side); on one with a real
    processor, a live key is refused (403 `live_mode_forbidden`, after
    authentication), so that nothing here ever acts on live data."""

    permission_classes = [accepts("api_key")]

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        if settings.PROCESSOR != "sandbox" and request.user.livemode:
            raise LiveModeForbidden(SANDBOX_NEEDS_TEST_KEY)


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
