"""Dashboard pages of `installments`, mounted under /dashboard/ by config/urls.py."""

from django.urls import path

from . import disputes as dispute_views
from . import refunds, views
from . import reschedules as reschedule_views

app_name = "installments_dashboard"

urlpatterns = [
    path("plans/", views.PlanListView.as_view(), name="plans"),
    path("plans.csv", views.PlansCsv.as_view(), name="plans-csv"),
    path("installments.csv", views.InstallmentsCsv.as_view(), name="installments-csv"),
    path("plans/<str:plan_id>/", views.PlanDetailView.as_view(), name="plan"),
    path(
        "plans/<str:plan_id>/agreement.pdf",
        views.PlanAgreementPdfView.as_view(),
        name="plan-agreement",
    ),
    path(
        "plans/<str:plan_id>/refund/",
        refunds.PlanRefundView.as_view(),
        name="plan-refund",
    ),
    path(
        "plans/<str:plan_id>/cancel/",
        views.PlanCancelView.as_view(),
        name="plan-cancel",
    ),
    path(
        "plans/<str:plan_id>/reschedule/",
        reschedule_views.PlanRescheduleView.as_view(),
        name="plan-reschedule",
    ),
    path(
        "plans/<str:plan_id>/resume/",
        dispute_views.PlanResumeView.as_view(),
        name="plan-resume",
    ),
    path("disputes/", dispute_views.DisputeListView.as_view(), name="disputes"),
    path(
        "disputes/<str:dispute_id>/",
        dispute_views.DisputeDetailView.as_view(),
        name="dispute",
    ),
    path(
        "disputes/<str:dispute_id>/answer/",
        dispute_views.DisputeAnswerView.as_view(),
        name="dispute-answer",
    ),
    path(
        "disputes/<str:dispute_id>/accept/",
        dispute_views.DisputeAcceptView.as_view(),
        name="dispute-accept",
    ),
]
