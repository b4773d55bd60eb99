"""The customer's data page, `/account/privacy/` (DESIGN section 18):
download everything held about them, and erase it (a form to confirm, so it
is never one click). HTTP in/out only: installments.privacy decides."""

from django import forms
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from config.api.errors import DomainError
from config.web.session_auth import see_other
from payments.customers.session import customer_login_required, customer_sign_out

from ..privacy.download import data_download
from ..privacy.erasure import customer_erase
from ..privacy.rules import erasure_refusals

CONFIRM_WORD = "ERASE"


class ErasureConfirmForm(forms.Form):
    confirm = forms.BooleanField(
        label="I understand that my account is closed and this cannot be undone",
        error_messages={"required": "Tick the box to confirm."},
    )
    typed = forms.CharField(
        max_length=10,
        label=f"Type {CONFIRM_WORD} to confirm",
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )

    def clean_typed(self) -> str:
        typed = self.cleaned_data["typed"].strip()
        if typed != CONFIRM_WORD:
            raise forms.ValidationError(f"Type {CONFIRM_WORD} in capitals to confirm.")
        return typed


def _page(request, form, status=200):
    return TemplateResponse(
        request,
        "installments/account/privacy.html",
        {"form": form, "refusals": erasure_refusals(request.customer)},
        status=status,
    )


@never_cache
@customer_login_required
def privacy(request):
    return _page(request, ErasureConfirmForm())


@require_POST
@customer_login_required
def privacy_export(request):
    return data_download(request.customer)


@method_decorator([never_cache, customer_login_required], "dispatch")
class PrivacyEraseView(View):
    def get(self, request):
        return see_other(reverse("account:privacy"))

    def post(self, request):
        form = ErasureConfirmForm(request.POST)
        if not form.is_valid():
            return _page(request, form, status=400)
        try:
            customer_erase(customer=request.customer)
        except DomainError as error:
            form.add_error(None, error.message)
            return _page(request, form, status=error.http_status)
        customer_sign_out(request)
        return see_other(reverse("account:privacy-erased"))


def privacy_erased(request):
    return TemplateResponse(request, "installments/account/erased.html")
