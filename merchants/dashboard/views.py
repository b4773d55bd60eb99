"""Dashboard pages of `merchants`: sign-up, sign-in, overview, API keys,
settings.

HTTP in/out only: each view validates a form, calls one service, renders. Every
page reads and writes the signed-in merchant (`request.merchant`) and nothing else.
"""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponseBadRequest
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from rest_framework.exceptions import ValidationError as ApiValidationError

from config.api.errors import RateLimited
from config.api.login_guard import client_ip
from config.web.forms import FormPage
from config.web.pager import page_of, query_without
from config.web.session_auth import see_other

from .. import account_settings, selectors, services
from ..account_settings import WEBHOOK_SECRET_PREFIX
from ..audit.actors import actor_from_request
from ..errors import ApiAccessDisabled, MerchantNotActive
from ..models import Merchant
from .auth import (
    MerchantLoginRequiredMixin,
    dashboard_sign_out,
)
from .forms import (
    SETTINGS_FORMS,
    ApiKeyForm,
    LegalSettingsForm,
    PlanSettingsForm,
    RescheduleSettingsForm,
    SignUpForm,
    WebhookUrlForm,
    legal_missing,
)
from .sign_in import SignedOutPage

KEY_HISTORY_PAGE_SIZE = 10


def _url(name: str, **kwargs) -> str:
    return reverse(f"merchants_dashboard:{name}", kwargs=kwargs)


@method_decorator([never_cache, sensitive_post_parameters("password")], name="dispatch")
class SignUpView(SignedOutPage):
    """Registration on the web: the rules of the API's registration, then a page
    that says to check the inbox and sign in. An address that already has an
    account gets the very same answer (its owner an e-mail instead of a new
    account): unlike the API's 409, the form tells a stranger nothing. So the
    form never signs anyone in."""

    template_name = "merchants/dashboard/sign_up.html"

    def form(self, data=None):
        return SignUpForm(data)

    def submitted(self, request, form):
        try:
            services.merchant_sign_up(**form.registration, client_ip=client_ip(request))
        except ApiValidationError as error:
            for field, messages_ in error.detail.items():
                for message in messages_:
                    form.add_error(field, str(message))
        except RateLimited as error:
            form.add_error(None, error.message)
            response = self.render(request, form, status=429)
            for name, value in error.headers.items():
                response[name] = value
            return response
        else:
            return see_other(_url("signup-done"))
        return self.render(request, form, status=400)


class SignUpDoneView(View):
    def get(self, request):
        return TemplateResponse(request, "merchants/dashboard/sign_up_done.html", {})


class SignOutView(View):
    http_method_names = ["post"]

    def post(self, request):
        dashboard_sign_out(request)
        messages.info(request, "You are signed out.")
        return see_other(_url("login"))


class OverviewView(MerchantLoginRequiredMixin, View):
    permission = "view"

    def get(self, request):
        merchant = request.merchant
        return TemplateResponse(
            request,
            "merchants/dashboard/overview.html",
            {
                # The account's facts (status, id, approval) are the live
                # row's; the key and the webhook are the side's shown.
                "account": request.account,
                "live_key": selectors.live_api_key_of(merchant),
                "webhook_secret_set": bool(merchant.webhook_secret),
                "legal_missing": legal_missing(merchant),
            },
        )


def key_refusal(merchant: Merchant) -> str | None:
    """Why this account cannot generate a live key now, in words for the
    dashboard."""
    if merchant.status == Merchant.Status.PENDING:
        return (
            "Your account is pending approval, and live keys wait for it: you can "
            "generate a live key once it is approved and API access is enabled; "
            "we e-mail you at each step. Test keys work now: build against test "
            "mode with one."
        )
    if merchant.status == Merchant.Status.SUSPENDED:
        return (
            "Your account is suspended, so API keys cannot be generated. Contact "
            "us to have it reinstated."
        )
    if not merchant.api_access_enabled:
        return (
            "API access is not enabled for your account yet. We e-mail you as soon "
            "as it is; then you can generate a key here. Test keys work now."
        )
    return None


def refusal_of_test_keys(account: Merchant) -> str | None:
    """Test keys need only an account that is not suspended (DESIGN section
    21): pending accounts build against test mode before approval."""
    if account.status == Merchant.Status.SUSPENDED:
        return (
            "Your account is suspended, so test keys cannot be generated either. "
            "Contact us to have it reinstated."
        )
    return None


# The key page's two forms: the live one posts its fields bare (as it always
# did), the test one with the prefix "test" and `mode=test`.
KEY_MODES = {"live": None, "test": "test"}


class ApiKeysView(MerchantLoginRequiredMixin, FormPage):
    """The account's live key and test key, each on its own: its key in use,
    its form to generate or rotate it, its revoked keys. The page is the
    account's, so it shows both whichever side the dashboard shows."""

    permission = "keys"
    fresh_code_for_changes = True

    template_name = "merchants/dashboard/keys.html"

    def form(self, data=None, mode="live"):
        form = ApiKeyForm(data, prefix=KEY_MODES[mode])
        if mode == "test":
            form.fields["name"].label = "Name of the test key (optional)"
        return form

    def post(self, request):
        mode = request.POST.get("mode", "live")
        if mode not in KEY_MODES:
            return HttpResponseBadRequest("mode is live or test.")
        form = self.form(request.POST, mode)
        if not form.is_valid():
            return self.render(request, form, mode=mode, status=400)
        return self.submitted(request, form, mode)

    def submitted(self, request, form, mode="live"):
        account = request.account
        side = selectors.side_of(account, mode == "live")
        # Only for what the page says: "your previous key stopped working" is
        # true of a rotation, not of the first key.
        replaced = side is not None and selectors.live_api_key_of(side) is not None
        try:
            _, plaintext = services.api_key_rotate(
                merchant=account,
                mode=mode,
                name=form.cleaned_data["name"],
                actor=actor_from_request(request),
            )
        except (MerchantNotActive, ApiAccessDisabled):
            account.refresh_from_db()
            return self.render(request, form, mode=mode, status=403)
        account.refresh_from_db()
        # Rendered into this response only: the plaintext is stored nowhere, and the
        # page swaps its address for a GET one, so a reload does not show it again.
        return self.render(
            request, None, new_key=plaintext, new_key_mode=mode, replaced=replaced
        )

    def render(
        self,
        request,
        form,
        *,
        mode="live",
        new_key=None,
        new_key_mode="live",
        replaced=False,
        status=200,
    ):
        account = request.account
        # None until the first test key or switch: reading the page makes nothing.
        test_side = selectors.test_side_of(account)
        forms_ = {"live": self.form(), "test": self.form(mode="test")}
        if form is not None:
            forms_[mode] = form
        return TemplateResponse(
            request,
            self.template_name,
            {
                "form": forms_["live"],
                "live_key": selectors.live_api_key_of(account),
                "history": page_of(
                    request, selectors.revoked_api_keys(account), KEY_HISTORY_PAGE_SIZE
                ),
                "refusal": key_refusal(account),
                "test_form": forms_["test"],
                "test_key": test_side and selectors.live_api_key_of(test_side),
                "test_history": page_of(
                    request,
                    selectors.revoked_api_keys(test_side) if test_side else [],
                    KEY_HISTORY_PAGE_SIZE,
                    param="test_page",
                ),
                "test_refusal": refusal_of_test_keys(account),
                "pager_query": query_without(request),
                "test_pager_query": query_without(request, "test_page"),
                "new_key": new_key,
                "new_key_mode": new_key_mode,
                "replaced": replaced,
            },
            status=status,
        )


def masked_secret(secret: str) -> str:
    """Enough of a secret to recognise it, never enough to use it."""
    if not secret:
        return ""
    prefix = WEBHOOK_SECRET_PREFIX if secret.startswith(WEBHOOK_SECRET_PREFIX) else ""
    return f"{prefix}{secret[len(prefix) : len(prefix) + 4]}…"


ACTION_WEBHOOK_URL = "webhook_url"
ACTION_WEBHOOK_SECRET = "webhook_secret"
WEBHOOK_ACTIONS = (ACTION_WEBHOOK_URL, ACTION_WEBHOOK_SECRET)
ACTION_PLAN = "plan"


class SettingsView(MerchantLoginRequiredMixin, View):
    permission = "view"
    change_permission = "settings"

    def needed_permission(self, request) -> str | None:
        """The webhook's URL and secret are the `webhooks` permission's; the
        plan, rescheduling and legal settings `settings`."""
        action = request.POST.get("action")
        if request.method == "POST" and action in WEBHOOK_ACTIONS:
            return "webhooks"
        return super().needed_permission(request)

    def needs_fresh_code(self, request) -> bool:
        return request.method == "POST" and request.POST.get("action") in (
            WEBHOOK_ACTIONS
        )

    template_name = "merchants/dashboard/settings.html"

    def get(self, request):
        return self._render(request)

    def post(self, request):
        action = request.POST.get("action")
        merchant = request.merchant
        actor = actor_from_request(request)
        if action == ACTION_WEBHOOK_URL:
            form = WebhookUrlForm(request.POST)
            if not form.is_valid():
                return self._render(request, webhook_form=form, status=400)
            account_settings.merchant_update_settings(
                merchant=merchant, actor=actor, **form.changes
            )
            messages.success(request, "Webhook URL saved.")
            return see_other(_url("settings"))
        if action == ACTION_WEBHOOK_SECRET:
            merchant, secret = account_settings.webhook_secret_regenerate(
                merchant=merchant, actor=actor
            )
            request.merchant = merchant
            # Shown in this response only (see ApiKeysView.post).
            return self._render(request, new_secret=secret)
        if action == ACTION_PLAN:
            form = PlanSettingsForm(request.POST)
            if form.is_valid():
                try:
                    account_settings.merchant_update_settings(
                        merchant=merchant, actor=actor, **form.changes
                    )
                except ValidationError as error:
                    form.add_error(None, error)
                else:
                    messages.success(request, "Plan configuration saved.")
                    return see_other(_url("settings"))
            return self._render(request, plan_form=form, status=400)
        if action in SETTINGS_FORMS:
            form_class, name, saved = SETTINGS_FORMS[action]
            form = form_class(request.POST)
            if not form.is_valid():
                return self._render(request, status=400, **{name: form})
            account_settings.merchant_update_settings(
                merchant=merchant, actor=actor, **form.changes
            )
            messages.success(request, saved)
            return see_other(_url("settings"))
        return HttpResponseBadRequest("Unknown settings action.")

    def _render(self, request, *, new_secret=None, status=200, **bound):
        merchant = request.merchant
        return TemplateResponse(
            request,
            self.template_name,
            {
                "webhook_form": bound.get("webhook_form")
                or WebhookUrlForm(initial={"webhook_url": merchant.webhook_url}),
                **{
                    name: bound.get(name) or form(initial=form.initial_for(merchant))
                    for form, name in (
                        (PlanSettingsForm, "plan_form"),
                        (RescheduleSettingsForm, "reschedule_form"),
                        (LegalSettingsForm, "legal_form"),
                    )
                },
                "legal_missing": legal_missing(merchant),
                "masked_secret": masked_secret(merchant.webhook_secret),
                "new_secret": new_secret,
            },
            status=status,
        )
