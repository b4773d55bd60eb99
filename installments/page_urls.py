"""Public pages of installments, outside /api/v1 and /account/ (mounted by
config/urls.py): the pay page of a pay link."""

from django.urls import path

from .pay import pages

urlpatterns = [
    path("pay/<str:token>", pages.pay_page, name="pay-page"),
    path("pay/<str:token>/new-link", pages.pay_new_link, name="pay-new-link"),
    path("pay/<str:token>/card", pages.pay_card_return, name="pay-card-return"),
    path(
        "pay/<str:token>/payments/<str:payment_id>",
        pages.pay_payment,
        name="pay-payment",
    ),
]
