"""Public pages of `merchants` outside /api/v1 and /dashboard/ (mounted by
config/urls.py): the landing page, the guides and the site's icon."""

from django.urls import path

from . import pages

urlpatterns = [
    path("", pages.landing, name="landing"),
    path("docs/", pages.guide_index, name="guides"),
    path("docs/<slug:slug>/", pages.guide_page, name="guide"),
    # Browsers ask for /favicon.ico on pages that name no icon (the admin's).
    path("favicon.ico", pages.favicon, name="favicon"),
]
