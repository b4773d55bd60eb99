"""Pages of the payments app outside /api/v1 (mounted by config/urls.py)."""

from django.urls import path

from . import sandbox_pages

urlpatterns = [
    path(
        "sandbox/authorize/<str:reference>",
        sandbox_pages.authorize,
        name="sandbox-authorize",
    ),
    path(
        "sandbox/mandate/<str:reference>", sandbox_pages.mandate, name="sandbox-mandate"
    ),
]
