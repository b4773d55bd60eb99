"""Routes served with and without a trailing slash, never redirected (DESIGN §3)."""

from django.urls import path


def api_path(route: str, view, name: str):
    return [path(route, view, name=name), path(f"{route}/", view)]
