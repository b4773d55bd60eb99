"""Dashboard pages of `webhooks`, mounted under /dashboard/ by config/urls.py."""

from django.urls import path

from . import views

app_name = "webhooks_dashboard"

urlpatterns = [
    path("webhooks/", views.DeliveryLogView.as_view(), name="log"),
    path("webhooks/deliveries.csv", views.DeliveryLogCsv.as_view(), name="log-csv"),
    path(
        "webhooks/events/<str:event_id>/",
        views.EventDetailView.as_view(),
        name="event",
    ),
    path(
        "webhooks/events/<str:event_id>/replay/",
        views.EventReplayView.as_view(),
        name="replay",
    ),
    path(
        "webhooks/deliveries/<str:attempt_id>/",
        views.AttemptRedirectView.as_view(),
        name="attempt",
    ),
]
