"""Signing a customer in (by password or by a one-time code), or registering
one, from a page: the forms, each with `submit(request)`, the one
implementation of what posting it does. The
hosted checkout (checkout/pages.py) and the `/account/` pages
(installments/account/views.py) both post these forms and nothing else.

The registration form validates with the API's input serializer
(`config.web.forms.validate_with_serializer`), so a page and the API accept and
refuse exactly the same values with the same messages.
"""

from django import forms
from django.db import transaction
from rest_framework.exceptions import ValidationError as ApiValidationError

from config.api.errors import DomainError
from config.api.login_guard import client_ip
from config.web.forms import validate_with_serializer

from . import services
from .models import Customer, CustomerSignIn
from .phones import NotANigerianMobile, nigerian_mobile
from .serializers import CustomerRegisterInput
from .session import customer_sign_in

# Where a number for texts was given (Customer.sms_consent_source), by the page
# a registration form was posted on.
SMS_CONSENT_SOURCES = {"account": "registration", "checkout": "checkout"}
PROFILE_SMS_SOURCE = "account_profile"


class _SignInByForm(forms.Form):
    """A form whose submission gives a customer and signs them in. Each form
    defines `customer(*, client_ip) -> Customer`: the customer its cleaned data
    stands for, or the DomainError (or the API's ValidationError) that says why
    there is none."""

    success_status = 200
    # How a sign-in by this form is recorded (CustomerSignIn.How).
    how = CustomerSignIn.How.PASSWORD
    page = "account"

    def error_field(self, error: DomainError) -> str | None:
        """The field a refusal is shown under (None: above the form)."""
        return None

    def submit(self, request, *, page: str = "account") -> tuple[Customer | None, int]:
        """Validate, then sign the customer in (and record the sign-in):
        (the customer, the success status); or (None, the HTTP status to answer
        with) and the reason on the form. `page` names where the form was
        posted ("account" or "checkout"): the source of an SMS consent given
        on it."""
        if not self.is_valid():
            return None, 400
        self.page = page
        try:
            customer = self.customer(client_ip=client_ip(request))
        except ApiValidationError as error:
            for field, problems in error.detail.items():
                for problem in problems:
                    self.add_error(
                        field if field in self.fields else None, str(problem)
                    )
            return None, 400
        except DomainError as error:
            self.add_error(self.error_field(error), error.message)
            return None, error.http_status
        customer_sign_in(request, customer)
        services.customer_sign_in_record(
            customer=customer,
            how=self.how,
            ip=client_ip(request),
            user_agent=request.META.get("HTTP_USER_AGENT", ""),
        )
        return customer, self.success_status


class CustomerSignInForm(_SignInByForm):
    email = forms.EmailField(
        max_length=254, widget=forms.EmailInput(attrs={"autocomplete": "email"})
    )
    password = forms.CharField(
        max_length=128,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )

    def customer(self, *, client_ip: str) -> Customer:
        return services.customer_login(
            email=self.cleaned_data["email"],
            password=self.cleaned_data["password"],
            client_ip=client_ip,
        )


class CustomerEmailForm(forms.Form):
    """The address a password-reset link or a sign-in code is asked for."""

    email = forms.EmailField(
        max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )


class CustomerCodeSignInForm(_SignInByForm):
    """Signing in with the one-time code e-mailed and texted to the account."""

    how = CustomerSignIn.How.CODE

    email = forms.EmailField(
        max_length=254, widget=forms.EmailInput(attrs={"autocomplete": "email"})
    )
    code = forms.RegexField(
        regex=r"^\s*[0-9]{6}\s*$",
        max_length=12,
        label="6-digit code",
        error_messages={"invalid": "Enter the 6 digits of the code we sent you."},
        widget=forms.TextInput(
            attrs={
                "autocomplete": "one-time-code",
                "inputmode": "numeric",
                "pattern": "[0-9]*",
            }
        ),
    )

    def customer(self, *, client_ip: str) -> Customer:
        return services.customer_login_by_code(
            email=self.cleaned_data["email"],
            code=self.cleaned_data["code"].strip(),
            client_ip=client_ip,
        )


class CustomerRegisterForm(_SignInByForm):
    success_status = 201
    how = CustomerSignIn.How.REGISTER

    email = forms.EmailField(
        max_length=254, widget=forms.EmailInput(attrs={"autocomplete": "email"})
    )
    first_name = forms.CharField(
        max_length=100, widget=forms.TextInput(attrs={"autocomplete": "given-name"})
    )
    last_name = forms.CharField(
        max_length=100, widget=forms.TextInput(attrs={"autocomplete": "family-name"})
    )
    phone = forms.CharField(
        max_length=20,
        label="Phone number",
        widget=forms.TextInput(
            attrs={"autocomplete": "tel", "inputmode": "tel", "placeholder": "+234"}
        ),
    )
    # Texting is the customer's choice (unticked until they tick it); the
    # number can be changed or removed on /account/profile/ later.
    sms_consent = forms.BooleanField(
        required=False,
        label="Also text me payment reminders and receipts at this number",
        help_text="Nigerian mobile numbers only. You can change or remove it on "
        "your profile at any time.",
    )
    password = forms.CharField(
        max_length=128,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        help_text="At least 8 characters; not a common password.",
    )

    def clean(self):
        cleaned = super().clean()
        if not self.errors:
            # The API's registration has no such box (texting is added there
            # with the profile's number).
            fields = {k: v for k, v in cleaned.items() if k != "sms_consent"}
            validated = validate_with_serializer(self, CustomerRegisterInput, fields)
            if validated is not None:
                cleaned.update(validated)
        if cleaned.get("sms_consent") and not self.has_error("phone"):
            try:
                cleaned["sms_phone"] = nigerian_mobile(cleaned.get("phone", ""))
            except NotANigerianMobile as error:
                self.add_error("phone", f"{error} Or untick the box for text messages.")
        return cleaned

    def customer(self, *, client_ip: str) -> Customer:
        data = self.cleaned_data
        with transaction.atomic():
            customer = services.customer_register(
                email=data["email"],
                password=data["password"],
                first_name=data["first_name"],
                last_name=data["last_name"],
                phone=data["phone"],
            )
            if data.get("sms_phone"):
                customer = services.customer_sms_phone_set(
                    customer=customer,
                    sms_phone=data["sms_phone"],
                    source=SMS_CONSENT_SOURCES[self.page],
                )
        return customer

    def error_field(self, error: DomainError) -> str | None:
        return "email" if error.http_status == 409 else None


class SmsPhoneForm(forms.Form):
    """The number reminders and receipts are texted to (the /account/ profile page)."""

    sms_phone = forms.CharField(
        max_length=32,
        label="Mobile number",
        error_messages={
            "required": "Enter your mobile number, or remove it to get e-mails only."
        },
        widget=forms.TextInput(
            attrs={
                "autocomplete": "tel",
                "inputmode": "tel",
                "placeholder": "0803 123 4567",
            }
        ),
    )

    def clean_sms_phone(self) -> str:
        try:
            return nigerian_mobile(self.cleaned_data["sms_phone"])
        except NotANigerianMobile as error:
            raise forms.ValidationError(str(error)) from None
