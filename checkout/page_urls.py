"""Customer-facing pages of checkout, outside /api/v1 (mounted by config/urls.py)."""

from django.urls import path

from . import pages
from .transfer import pages as transfer_pages

urlpatterns = [
    path("checkout/<str:token>", pages.checkout_page, name="checkout-page"),
    path(
        "checkout/<str:token>/sign-in",
        pages.checkout_sign_in,
        {"form_name": "sign_in"},
        name="checkout-sign-in",
    ),
    path(
        "checkout/<str:token>/register",
        pages.checkout_sign_in,
        {"form_name": "register"},
        name="checkout-register",
    ),
    path(
        "checkout/<str:token>/sign-out",
        pages.checkout_sign_out,
        name="checkout-sign-out",
    ),
    path(
        "checkout/<str:token>/preview", pages.checkout_preview, name="checkout-preview"
    ),
    path("checkout/<str:token>/pay", pages.checkout_pay, name="checkout-pay"),
    path("checkout/<str:token>/done", pages.checkout_done, name="checkout-done"),
    path(
        "checkout/<str:token>/deposit",
        transfer_pages.checkout_deposit,
        name="checkout-deposit",
    ),
    path("l/<str:slug>", pages.payment_link, name="payment-link-page"),
    path("widget.js", pages.widget_js, name="widget-js"),
    path("demo/", pages.widget_demo, name="widget-demo"),
]
