from django.db import models
from django.db.models.functions import Lower

from config.api.ids import new_public_id
from config.models import PasswordCredentials

NEW_CUSTOMER_SCORE = 500


def new_customer_id() -> str:
    return new_public_id("cus")


class Customer(PasswordCredentials, models.Model):
    """A shopper. Not a Django user and not a merchant: one e-mail address may hold a
    customer account and a merchant account at once (DESIGN section 4)."""

    public_id = models.CharField(max_length=40, unique=True, default=new_customer_id)
    email = models.EmailField(max_length=254)
    password = models.CharField(max_length=128)
    # Moves on with every password change: JWTs carry the version they were
    # issued under and are refused once it moves on (config/api/auth.py).
    credential_version = models.PositiveIntegerField(default=0)
    first_name = models.CharField(max_length=100)
    last_name = models.CharField(max_length=100)
    phone = models.CharField(max_length=20)
    # The number reminders and receipts are texted to (E.164, `+234...`), which
    # the customer adds on /account/profile/; blank: e-mail only. Apart from
    # `phone` (any format, given at registration) so that texting is the
    # customer's choice and removing it leaves the registration detail alone.
    sms_phone = models.CharField(max_length=16, blank=True, default="")
    # The customer's consent to texts (DESIGN section 18): when the number was
    # last added or changed, and on which page ("account_profile",
    # "registration", "checkout"). Blank once texting is turned off.
    sms_consent_at = models.DateTimeField(null=True, blank=True)
    sms_consent_source = models.CharField(max_length=32, blank=True)
    # When the customer's data was erased (anonymised) at their request.
    erased_at = models.DateTimeField(null=True, blank=True)
    # Stored copy of the plan-rules score; always recomputed from history, never
    # incremented in place (DESIGN section 6).
    score = models.PositiveSmallIntegerField(default=NEW_CUSTOMER_SCORE)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    is_authenticated = True
    principal_role = "customer"

    class Meta:
        constraints = [
            models.UniqueConstraint(Lower("email"), name="customer_email_unique_ci"),
        ]
        ordering = ["-created_at"]

    def __str__(self):
        return f"{self.first_name} {self.last_name} <{self.email}> ({self.public_id})"


class SignInCode(models.Model):
    """A one-time 6-digit code sent to a customer by e-mail and SMS (codes.py:
    the rules). Only a keyed hash of the code is stored. A customer has at most
    one live code per purpose: issuing a new one ends the one before. A code
    works until `expires_at`, once; after `MAX_WRONG_TRIES` wrong tries it never
    works again, even with the right digits."""

    MAX_WRONG_TRIES = 5

    class Purpose(models.TextChoices):
        SIGN_IN = "sign_in"  # signing in at /account/
        PAY = "pay"  # unlocking a saved payment method on a pay link's page

    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="+")
    purpose = models.CharField(max_length=16, choices=Purpose.choices)
    code_hash = models.CharField(max_length=64)
    wrong_tries = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    # When it stopped working early: used, or replaced by a newer code.
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["customer", "purpose"],
                condition=models.Q(ended_at__isnull=True),
                name="sign_in_code_one_live_per_purpose",
            ),
        ]

    def __str__(self):
        return f"{self.purpose} code {self.pk} of customer {self.customer_id}"


USER_AGENT_LENGTH = 255


class CustomerSignIn(models.Model):
    """One sign-in of a customer (DESIGN section 18): when, from which address
    and browser, and how. Append-only; kept `SIGN_IN_RECORD_MONTHS` (docs:
    privacy), and erased with the customer."""

    class How(models.TextChoices):
        PASSWORD = "password"  # the web sign-in (/account/, the checkout)
        CODE = "code"  # a one-time code
        JWT = "jwt"  # the API's token endpoint (login or registration)
        RESET = "reset"  # a password-reset link
        REGISTER = "register"  # a new account, signed in at once

    customer = models.ForeignKey(
        Customer, on_delete=models.CASCADE, related_name="sign_ins"
    )
    at = models.DateTimeField()
    ip = models.GenericIPAddressField(null=True, blank=True)
    user_agent = models.CharField(max_length=USER_AGENT_LENGTH, blank=True)
    how = models.CharField(max_length=16, choices=How.choices)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["customer", "at"])]

    def __str__(self):
        return f"{self.how} sign-in of customer {self.customer_id} at {self.at}"
