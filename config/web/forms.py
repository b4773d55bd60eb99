"""Pages of forms: the one shape of a page of one form (`FormPage`), the fields of
a sign-in form as a sign-in takes them, and the glue between the pages' forms and
the API's input serializers: a page validates with the serializer of the same
thing, so a page and the API accept and refuse exactly the same values with the
same messages."""

from abc import ABC, abstractmethod

from django import forms
from django.contrib.auth import password_validation
from django.core.exceptions import ValidationError
from django.template.response import TemplateResponse
from django.views import View

from config.api.login_guard import client_ip


class FormPage(View, ABC):
    """A page of one form. GET: the form, blank; POST: the form bound to the
    body, shown again with a 400 while it is invalid, else `submitted` answers.
    `render` shows the page; a page with more on it than the form overrides it."""

    template_name = ""

    @abstractmethod
    def form(self, data=None):
        """The page's form, bound to `data` when there is one."""

    @abstractmethod
    def submitted(self, request, form):
        """The answer to a valid form: do what it asks, then redirect (303)."""

    def get(self, request):
        return self.render(request, self.form())

    def post(self, request):
        form = self.form(request.POST)
        if not form.is_valid():
            return self.render(request, form, status=400)
        return self.submitted(request, form)

    def render(self, request, form, status=200):
        return TemplateResponse(
            request, self.template_name, {"form": form}, status=status
        )


def _new_password_field(label: str):
    return forms.CharField(
        label=label,
        max_length=128,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )


class SetPasswordForm(forms.Form):
    """A new password for `account` (a merchant or a customer), typed twice,
    checked by Django's password validators."""

    new_password = _new_password_field("New password")
    new_password_confirm = _new_password_field("New password (again)")

    def __init__(self, account, *args, **kwargs):
        self.account = account
        super().__init__(*args, **kwargs)
        self.fields[
            "new_password"
        ].help_text = password_validation.password_validators_help_text_html()

    def clean(self):
        cleaned = super().clean()
        password = cleaned.get("new_password")
        confirm = cleaned.get("new_password_confirm")
        if password and confirm and password != confirm:
            self.add_error("new_password_confirm", "The two passwords do not match.")
        elif password:
            try:
                password_validation.validate_password(password, user=self.account)
            except ValidationError as error:
                self.add_error("new_password", error)
        return cleaned


def sign_in_credentials(request, form) -> dict:
    """A valid sign-in form's e-mail and password, and the client's address: what
    `config.accounts.AccountKind.sign_in` takes."""
    return {
        "email": form.cleaned_data["email"],
        "password": form.cleaned_data["password"],
        "client_ip": client_ip(request),
    }


def _messages(detail) -> list[str]:
    """DRF error details (lists, or dicts for list items) as flat strings."""
    if isinstance(detail, dict):
        return [text for value in detail.values() for text in _messages(value)]
    if isinstance(detail, list):
        return [text for value in detail for text in _messages(value)]
    return [str(detail)]


def validate_with_serializer(form, serializer_class, data: dict, field_for=None):
    """Run `serializer_class` on `data`; put its errors next to the form's fields.

    Returns the validated data, or None when there were errors. `field_for` maps a
    serializer field to the form field that shows its errors.
    """
    serializer = serializer_class(data=data)
    if serializer.is_valid():
        return dict(serializer.validated_data)
    for name, detail in serializer.errors.items():
        target = (field_for or {}).get(name, name)
        for message in _messages(detail):
            form.add_error(target if target in form.fields else None, message)
    return None


class SerializerForm(forms.Form):
    """A form that, once its own fields are valid, validates with the API's input
    serializer of the same thing (`serializer_class`) and keeps its values."""

    serializer_class = None

    def clean(self):
        cleaned = super().clean()
        if not self.errors:
            validated = validate_with_serializer(self, self.serializer_class, cleaned)
            if validated is not None:
                cleaned.update(validated)
        return cleaned


class FilterForm(forms.Form):
    """A list's filters (a GET form). A value outside a field's choices is shown
    as an error next to the field and that filter is left off. `filter_names`
    names a field's filter where the selector calls it otherwise."""

    filter_names: dict[str, str] = {}

    def filters(self) -> dict:
        """The valid filters, "" for the others (call after `is_valid()`)."""
        return {
            self.filter_names.get(name, name): ""
            if name in self.errors
            else self.cleaned_data.get(name, "")
            for name in self.fields
        }
