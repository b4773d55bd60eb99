"""Dashboard pages of `merchants`, mounted under /dashboard/ by config/urls.py.

Other apps mount their own dashboard pages under the same prefix, each with its own
URL namespace (DESIGN section 1).
"""

from django.urls import path

from . import audit, passwords, security, sides, sign_in, team, views

app_name = "merchants_dashboard"

urlpatterns = [
    path("", views.OverviewView.as_view(), name="overview"),
    path("signup/", views.SignUpView.as_view(), name="signup"),
    path("signup/done/", views.SignUpDoneView.as_view(), name="signup-done"),
    path("login/", sign_in.SignInView.as_view(), name="login"),
    path("login/code/", sign_in.SignInCodeView.as_view(), name="login-code"),
    path("security/", security.SecurityView.as_view(), name="security"),
    path("security/confirm/", security.CodeConfirmView.as_view(), name="code-confirm"),
    path("logout/", views.SignOutView.as_view(), name="logout"),
    path("test-mode/", sides.SideSwitchView.as_view(), name="test-mode"),
    path("keys/", views.ApiKeysView.as_view(), name="keys"),
    path("settings/", views.SettingsView.as_view(), name="settings"),
    path("team/", team.TeamView.as_view(), name="team"),
    path("invitation/<str:token>/", team.InvitationView.as_view(), name="invitation"),
    path("audit-log/", audit.AuditLogView.as_view(), name="audit-log"),
    path("audit-log.csv", audit.AuditLogCsv.as_view(), name="audit-log-csv"),
    path("password/", passwords.PasswordChangeView.as_view(), name="password-change"),
    path(
        "password-reset/",
        passwords.PasswordResetRequestView.as_view(),
        name="password-reset",
    ),
    path(
        "password-reset/sent/",
        passwords.PasswordResetSentView.as_view(),
        name="password-reset-sent",
    ),
    path(
        "password-reset/<str:member_id>/<str:token>/",
        passwords.PasswordResetConfirmView.as_view(),
        name="password-reset-confirm",
    ),
]
