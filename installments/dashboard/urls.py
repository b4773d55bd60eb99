"""Dashboard pages of `installments`, mounted under /dashboard/ by config/urls.py."""

from django.urls import path

from . import reschedules as reschedule_views
from . import views

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
        views.PlanRefundView.as_view(),
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
]
