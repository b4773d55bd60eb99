"""The customer's pages, mounted under /account/ by config/urls.py."""

from django.urls import path

from . import early as early_views
from . import methods as method_views
from . import privacy as privacy_views
from . import reschedules as reschedule_views
from . import signin as signin_views
from . import views

app_name = "account"

urlpatterns = [
    path("", views.overview, name="overview"),
    path("login/", views.SignInView.as_view(), name="login"),
    path("login/code/", signin_views.CodeRequestView.as_view(), name="login-code"),
    path(
        "login/code/enter/",
        signin_views.CodeSignInView.as_view(),
        name="login-code-enter",
    ),
    path(
        "password-reset/",
        signin_views.PasswordResetRequestView.as_view(),
        name="password-reset",
    ),
    path(
        "password-reset/sent/",
        signin_views.PasswordResetSentView.as_view(),
        name="password-reset-sent",
    ),
    path(
        "password-reset/<str:customer_id>/<str:token>/",
        signin_views.PasswordResetConfirmView.as_view(),
        name="password-reset-confirm",
    ),
    path("register/", views.RegisterView.as_view(), name="register"),
    path("logout/", views.sign_out, name="logout"),
    path("profile/", views.ProfileView.as_view(), name="profile"),
    path("privacy/", privacy_views.privacy, name="privacy"),
    path("privacy/export/", privacy_views.privacy_export, name="privacy-export"),
    path(
        "privacy/erase/", privacy_views.PrivacyEraseView.as_view(), name="privacy-erase"
    ),
    path("privacy/erased/", privacy_views.privacy_erased, name="privacy-erased"),
    path("plans/<str:plan_id>/", views.plan_detail, name="plan"),
    path(
        "plans/<str:plan_id>/agreement.pdf",
        views.plan_agreement_pdf,
        name="plan-agreement",
    ),
    path("plans/<str:plan_id>/pay/", early_views.plan_pay, name="plan-pay"),
    path(
        "plans/<str:plan_id>/payments/<str:payment_id>/",
        early_views.plan_payment,
        name="plan-payment",
    ),
    path(
        "plans/<str:plan_id>/reschedule/",
        reschedule_views.PlanRescheduleView.as_view(),
        name="plan-reschedule",
    ),
    path("methods/card/", method_views.card_start, name="card-start"),
    path("methods/card/return/", method_views.card_return, name="card-return"),
    path("methods/bank/", method_views.BankStartView.as_view(), name="bank-start"),
    path(
        "methods/bank/<str:reference>/",
        method_views.BankStepView.as_view(),
        name="bank-step",
    ),
    path(
        "methods/<str:method_id>/default/",
        method_views.method_default,
        name="method-default",
    ),
    path(
        "methods/<str:method_id>/delete/",
        method_views.method_delete,
        name="method-delete",
    ),
]
