"""The customer's profile page, `/account/profile/`: their name and e-mail, and
the mobile number reminders and receipts are texted to (add, change, remove).
Mounted by the account URLs beside the sign-in pages (account.py)."""

from django.conf import settings
from django.contrib import messages
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.cache import never_cache

from config.web.session_auth import see_other

from . import services
from .forms import SmsPhoneForm
from .phones import NotANigerianMobile, nigerian_mobile
from .session import customer_login_required


def _suggested_number(customer) -> str:
    """What the form starts with: the texting number, else the registration
    phone when it is a Nigerian mobile (the customer still has to save it)."""
    if customer.sms_phone:
        return customer.sms_phone
    try:
        return nigerian_mobile(customer.phone)
    except NotANigerianMobile:
        return ""


@method_decorator([never_cache, customer_login_required], "dispatch")
class ProfileView(View):
    template_name = "account/profile.html"

    def _render(self, request, form, status=200):
        return TemplateResponse(
            request,
            self.template_name,
            {"form": form, "reminder_days": settings.REMINDER_DAYS_BEFORE},
            status=status,
        )

    def get(self, request):
        initial = {"sms_phone": _suggested_number(request.customer)}
        return self._render(request, SmsPhoneForm(initial=initial))

    def post(self, request):
        customer = request.customer
        if "remove" in request.POST:
            services.customer_sms_phone_set(customer=customer, sms_phone="")
            messages.success(
                request,
                "Your mobile number was removed: reminders and receipts come by "
                "e-mail only.",
            )
            return see_other(reverse("account:profile"))
        form = SmsPhoneForm(request.POST)
        if not form.is_valid():
            return self._render(request, form, status=400)
        services.customer_sms_phone_set(
            customer=customer, sms_phone=form.cleaned_data["sms_phone"]
        )
        messages.success(
            request,
            f"Reminders and receipts will be texted to {customer.sms_phone}.",
        )
        return see_other(reverse("account:profile"))
