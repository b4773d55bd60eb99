from config.api.urls import api_path

from . import api

urlpatterns = [
    *api_path("webhooks/test", api.WebhookTestApi.as_view(), "webhook-test"),
    *api_path(
        "webhooks/events/<str:event_id>/replay",
        api.EventReplayApi.as_view(),
        "webhook-event-replay",
    ),
    *api_path(
        "webhooks/failed-attempts",
        api.FailedAttemptsApi.as_view(),
        "webhook-failed-attempts",
    ),
    *api_path("events", api.EventListApi.as_view(), "event-list"),
    *api_path("events/<str:event_id>", api.EventDetailApi.as_view(), "event-detail"),
]
