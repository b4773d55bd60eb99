from config.api.urls import api_path

from . import api

urlpatterns = [
    *api_path("payment-plans", api.PlanListApi.as_view(), "payment-plan-list"),
    *api_path(
        "payment-plans/<str:plan_id>", api.PlanDetailApi.as_view(), "payment-plan"
    ),
    *api_path(
        "payment-plans/<str:plan_id>/pay", api.PlanPayApi.as_view(), "payment-plan-pay"
    ),
    *api_path(
        "sandbox/payment-plans/<str:plan_id>/collect-next",
        api.SandboxCollectNextApi.as_view(),
        "sandbox-plan-collect-next",
    ),
]
