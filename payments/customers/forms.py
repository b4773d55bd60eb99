"""Signing a customer in, or registering one, from a page: the two forms and
what submitting them does. The hosted checkout (checkout/pages.py) and the
`/account/` sign-in pages (account.py) both use these.

The registration form validates with the API's input serializer
(`config.web.forms.SerializerForm`), so a page and the API accept and
refuse exactly the same values with the same messages.
"""

from django import forms
from rest_framework.exceptions import ValidationError as ApiValidationError

from config.api.errors import DomainError
from config.web.forms import SerializerForm, sign_in_credentials

from . import services
from .serializers import CustomerRegisterInput
from .session import customer_sign_in


class CustomerSignInForm(forms.Form):
    email = forms.EmailField(
        max_length=254, widget=forms.EmailInput(attrs={"autocomplete": "email"})
    )
    password = forms.CharField(
        max_length=128,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )


class CustomerRegisterForm(SerializerForm):
    serializer_class = CustomerRegisterInput

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
    password = forms.CharField(
        max_length=128,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        help_text="At least 8 characters; not a common password.",
    )


def sign_in_attempt(request, form: CustomerSignInForm):
    """The customer, signed in; or None with the reason on the form (and the
    HTTP status to answer with)."""
    if not form.is_valid():
        return None, 400
    try:
        customer = services.customer_login(**sign_in_credentials(request, form))
    except DomainError as error:
        form.add_error(None, error.message)
        return None, error.http_status
    customer_sign_in(request, customer)
    return customer, 200


def register_attempt(request, form: CustomerRegisterForm):
    if not form.is_valid():
        return None, 400
    data = form.cleaned_data
    try:
        customer = services.customer_register(
            email=data["email"],
            password=data["password"],
            first_name=data["first_name"],
            last_name=data["last_name"],
            phone=data["phone"],
        )
    except ApiValidationError as error:
        for field, problems in error.detail.items():
            for problem in problems:
                form.add_error(field if field in form.fields else None, str(problem))
        return None, 400
    except DomainError as error:
        form.add_error("email" if error.http_status == 409 else None, error.message)
        return None, error.http_status
    customer_sign_in(request, customer)
    return customer, 201
