from config.api.urls import api_path

from .customers import api as customers
from .gateway import api as inbound
from .ledger import api as wallet
from .methods import api as methods
from .payouts import api as payouts

urlpatterns = [
    *api_path(
        "auth/customer/register",
        customers.CustomerRegisterApi.as_view(),
        "customer-register",
    ),
    *api_path(
        "auth/customer/login", customers.CustomerLoginApi.as_view(), "customer-login"
    ),
    *api_path("customers/me", customers.CustomerMeApi.as_view(), "customer-me"),
    # Payment methods (endpoints 10-20). Fixed paths before `<method_id>`.
    *api_path(
        "payment-methods/customers/<str:customer_id>",
        methods.PaymentMethodListApi.as_view(),
        "payment-method-list",
    ),
    *api_path("payment-methods/banks", methods.BankListApi.as_view(), "bank-list"),
    *api_path(
        "payment-methods/initialize-card",
        methods.CardInitializeApi.as_view(),
        "card-initialize",
    ),
    *api_path(
        "payment-methods/verify-card", methods.CardVerifyApi.as_view(), "card-verify"
    ),
    *api_path(
        "payment-methods/customers/<str:customer_id>/initiate-bank-mandate",
        methods.MandateInitiateApi.as_view(),
        "mandate-initiate",
    ),
    *api_path(
        "payment-methods/bank-mandate/submit-otp",
        methods.MandateSubmitOtpApi.as_view(),
        "mandate-submit-otp",
    ),
    *api_path(
        "payment-methods/bank-mandate/submit-birthday",
        methods.MandateSubmitBirthdayApi.as_view(),
        "mandate-submit-birthday",
    ),
    *api_path(
        "payment-methods/bank-mandate/submit-phone",
        methods.MandateSubmitPhoneApi.as_view(),
        "mandate-submit-phone",
    ),
    *api_path(
        "payment-methods/bank-mandate/verify",
        methods.MandateVerifyApi.as_view(),
        "mandate-verify",
    ),
    *api_path(
        "payment-methods/<str:method_id>/default",
        methods.PaymentMethodDefaultApi.as_view(),
        "payment-method-default",
    ),
    *api_path(
        "payment-methods/<str:method_id>",
        methods.PaymentMethodDeleteApi.as_view(),
        "payment-method-delete",
    ),
    # The merchant's wallet (endpoint 9) and payout account.
    *api_path(
        "merchant/<str:merchant_id>/wallet",
        wallet.WalletApi.as_view(),
        "merchant-wallet",
    ),
    *api_path(
        "merchant/<str:merchant_id>/payouts",
        payouts.PayoutListApi.as_view(),
        "merchant-payouts",
    ),
    *api_path(
        "merchant/<str:merchant_id>/payouts/<str:payout_id>/settlement",
        payouts.PayoutSettlementApi.as_view(),
        "merchant-payout-settlement",
    ),
    *api_path(
        "merchant/<str:merchant_id>/payout-account",
        payouts.PayoutAccountApi.as_view(),
        "merchant-payout-account",
    ),
    # Inbound processor events (endpoints 24 and 25).
    *api_path(
        "webhooks/paystack",
        inbound.PaystackWebhookApi.as_view(),
        "webhook-paystack",
    ),
    *api_path(
        "webhooks/payment-gateway",
        inbound.PaymentGatewayWebhookApi.as_view(),
        "webhook-payment-gateway",
    ),
]
