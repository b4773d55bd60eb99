from config.api.urls import api_path

from . import api

urlpatterns = [
    *api_path(
        "auth/customer/register", api.CustomerRegisterApi.as_view(), "customer-register"
    ),
    *api_path("auth/customer/login", api.CustomerLoginApi.as_view(), "customer-login"),
    *api_path("customers/me", api.CustomerMeApi.as_view(), "customer-me"),
]
