"""Pages of the payments app outside /api/v1 (mounted by config/urls.py)."""

from django.urls import path

from .gateway import pages

urlpatterns = [
    path(
        "sandbox/authorize/<str:reference>",
        pages.authorize,
        name="sandbox-authorize",
    ),
    path("sandbox/mandate/<str:reference>", pages.mandate, name="sandbox-mandate"),
]
