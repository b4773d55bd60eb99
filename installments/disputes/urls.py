"""Routes of disputes (DESIGN section 19), and of resuming a plan after one;
mounted by installments/urls.py."""

from config.api.urls import api_path

from . import api

urlpatterns = [
    *api_path("disputes", api.DisputeListApi.as_view(), "dispute-list"),
    *api_path("disputes/<str:dispute_id>", api.DisputeDetailApi.as_view(), "dispute"),
    *api_path(
        "disputes/<str:dispute_id>/evidence",
        api.DisputeEvidenceApi.as_view(),
        "dispute-evidence",
    ),
    *api_path(
        "disputes/<str:dispute_id>/accept",
        api.DisputeAcceptApi.as_view(),
        "dispute-accept",
    ),
    *api_path(
        "payment-plans/<str:plan_id>/resume",
        api.PlanResumeApi.as_view(),
        "payment-plan-resume",
    ),
]
