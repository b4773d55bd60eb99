"""Dashboard pages of `checkout`, mounted under /dashboard/ by config/urls.py."""

from django.urls import path

from . import views

app_name = "checkout_dashboard"

urlpatterns = [
    path("links/", views.PaymentLinksView.as_view(), name="links"),
    path("links/<str:link_id>/", views.PaymentLinkView.as_view(), name="link"),
    path(
        "links/<str:link_id>/toggle/",
        views.PaymentLinkToggleView.as_view(),
        name="toggle",
    ),
]
