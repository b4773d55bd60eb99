from config.api.urls import api_path

from .agreements import api as agreements_api
from .cancellation import api as cancellation_api
from .collection import api as sandbox_api
from .disputes import sandbox as disputes_sandbox
from .disputes import urls as disputes_urls
from .early import api as early_api
from .paylinks import api as paylinks_api
from .plans import api
from .refunds import api as refunds_api
from .reschedules import api as reschedules_api
from .signin import api as signin_api

urlpatterns = [
    *disputes_urls.urlpatterns,
    *api_path(
        "auth/customer/password-reset",
        signin_api.CustomerPasswordResetApi.as_view(),
        "customer-password-reset",
    ),
    *api_path("payment-plans", api.PlanListApi.as_view(), "payment-plan-list"),
    *api_path("installments", api.InstallmentListApi.as_view(), "installment-list"),
    *api_path(
        "payment-plans/<str:plan_id>", api.PlanDetailApi.as_view(), "payment-plan"
    ),
    *api_path(
        "payment-plans/<str:plan_id>/refunds",
        refunds_api.PlanRefundsApi.as_view(),
        "payment-plan-refunds",
    ),
    *api_path(
        "payment-plans/<str:plan_id>/agreement",
        agreements_api.PlanAgreementApi.as_view(),
        "payment-plan-agreement",
    ),
    *api_path(
        "payment-plans/<str:plan_id>/agreement.pdf",
        agreements_api.PlanAgreementPdfApi.as_view(),
        "payment-plan-agreement-pdf",
    ),
    *api_path(
        "payment-plans/<str:plan_id>/cancel",
        cancellation_api.PlanCancelApi.as_view(),
        "payment-plan-cancel",
    ),
    *api_path(
        "payment-plans/<str:plan_id>/pay",
        early_api.PlanPayApi.as_view(),
        "payment-plan-pay",
    ),
    *api_path(
        "payment-plans/<str:plan_id>/pay-links",
        paylinks_api.PlanPayLinksApi.as_view(),
        "payment-plan-pay-links",
    ),
    *api_path(
        "payment-plans/<str:plan_id>/payments/<str:payment_id>",
        early_api.PlanPaymentApi.as_view(),
        "payment-plan-payment",
    ),
    *api_path(
        "payment-plans/<str:plan_id>/installments/<str:installment_id>/reschedule",
        reschedules_api.InstallmentRescheduleApi.as_view(),
        "payment-plan-installment-reschedule",
    ),
    *api_path(
        "sandbox/payment-plans/<str:plan_id>/collect-next",
        sandbox_api.SandboxCollectNextApi.as_view(),
        "sandbox-plan-collect-next",
    ),
    *api_path(
        "sandbox/payment-plans/<str:plan_id>/advance",
        sandbox_api.SandboxAdvanceApi.as_view(),
        "sandbox-plan-advance",
    ),
    *api_path(
        "sandbox/payments/<str:payment_id>/complete",
        sandbox_api.SandboxPaymentCompleteApi.as_view(),
        "sandbox-payment-complete",
    ),
    *api_path(
        "sandbox/payments/<str:payment_id>/expire",
        sandbox_api.SandboxPaymentExpireApi.as_view(),
        "sandbox-payment-expire",
    ),
    *api_path(
        "sandbox/disputes/<str:dispute_id>/resolve",
        disputes_sandbox.SandboxDisputeResolveApi.as_view(),
        "sandbox-dispute-resolve",
    ),
]
