"""The customer-level half of a customer's data (DESIGN section 18): what
identifies them (their footprint), their profile and sign-ins as exported, and
anonymising the account. The plan-level rules, the export of everything and
the order of the erasure's steps are installments.privacy's."""

from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth.hashers import make_password
from django.db import transaction
from django.utils import timezone

from config.api.models import RateCounter

from .models import Customer, CustomerSignIn, SignInCode

# How long a sign-in record is kept (docs: privacy): enough to answer "was
# that me?" about a sign-in within the year.
SIGN_IN_RECORD_DAYS = 365

# What every erased free text (a message's body, a name in a payload) becomes.
ERASED_TEXT = "[erased]"
ERASED_DOMAIN = "erased.invalid"


def erased_email(customer: Customer) -> str:
    """The unique placeholder address of an erased customer (`.invalid` is
    reserved: nothing is ever delivered there)."""
    return f"erased-{customer.public_id}@{ERASED_DOMAIN}"


@dataclass(frozen=True)
class Footprint:
    """What identifies a customer, read before the erasure replaces it: the
    strings the erasure's steps look for in text they cannot blank whole."""

    customer_pk: int
    public_id: str
    email: str
    first_name: str
    last_name: str
    phone: str
    sms_phone: str
    ips: tuple[str, ...]
    user_agents: tuple[str, ...]

    @property
    def full_name(self) -> str:
        return f"{self.first_name} {self.last_name}".strip()

    def strings(self) -> list[str]:
        """The identifying strings worth replacing inside free text, longest
        first (so the full name goes before its parts)."""
        found = {
            self.email,
            self.email.lower(),
            self.full_name,
            self.first_name,
            self.last_name,
            self.phone,
            self.sms_phone,
            *self.ips,
            *self.user_agents,
        }
        return sorted((s for s in found if s.strip()), key=len, reverse=True)

    def scrub(self, value):
        """`value` (a text, or JSON: lists, objects, texts) with every
        identifying string replaced by ERASED_TEXT."""
        if isinstance(value, str):
            for found in self.strings():
                value = value.replace(found, ERASED_TEXT)
            return value
        if isinstance(value, list):
            return [self.scrub(item) for item in value]
        if isinstance(value, dict):
            return {self.scrub(key): self.scrub(item) for key, item in value.items()}
        return value


def rows_scrub(queryset, fields, footprint: Footprint) -> int:
    """Replace the footprint's strings in `fields` (texts or JSON) of the
    rows of `queryset`, saving only the fields that changed. The number of
    rows changed."""
    changed_rows = 0
    for row in queryset:
        changed = []
        for field in fields:
            old = getattr(row, field)
            new = footprint.scrub(old)
            if new != old:
                setattr(row, field, new)
                changed.append(field)
        if changed:
            type(row).objects.filter(pk=row.pk).update(
                **{field: getattr(row, field) for field in changed}
            )
            changed_rows += 1
    return changed_rows


def customer_footprint(customer: Customer, *, ips=(), user_agents=()) -> Footprint:
    """The customer's footprint: their profile, the addresses and browsers of
    their sign-ins, and those the callers found elsewhere (`ips`,
    `user_agents`)."""
    sign_ins = CustomerSignIn.objects.filter(customer=customer)
    all_ips = {*ips, *sign_ins.exclude(ip=None).values_list("ip", flat=True)}
    all_agents = {
        *user_agents,
        *sign_ins.exclude(user_agent="").values_list("user_agent", flat=True),
    }
    return Footprint(
        customer_pk=customer.pk,
        public_id=customer.public_id,
        email=customer.email,
        first_name=customer.first_name,
        last_name=customer.last_name,
        phone=customer.phone,
        sms_phone=customer.sms_phone,
        ips=tuple(sorted(ip for ip in all_ips if ip)),
        user_agents=tuple(sorted(ua for ua in all_agents if ua)),
    )


def customer_profile_export(customer: Customer) -> dict:
    """The profile, SMS consent and sign-ins as the customer downloads them:
    no password hash, no credential version, no sign-in codes."""
    return {
        "profile": {
            "id": customer.public_id,
            "email": customer.email,
            "first_name": customer.first_name,
            "last_name": customer.last_name,
            "phone": customer.phone,
            "created_at": customer.created_at.isoformat(),
            "updated_at": customer.updated_at.isoformat(),
        },
        "sms": {
            "number": customer.sms_phone,
            "consent_at": customer.sms_consent_at.isoformat()
            if customer.sms_consent_at
            else None,
            "consent_source": customer.sms_consent_source,
        },
        "sign_ins": [
            {
                "at": row.at.isoformat(),
                "how": row.how,
                "ip": row.ip,
                "user_agent": row.user_agent,
            }
            for row in CustomerSignIn.objects.filter(customer=customer)
        ],
    }


def customer_anonymise(*, customer: Customer, footprint: Footprint) -> Customer:
    """Replace what identifies the customer on their account and sign-ins, and
    make signing in impossible: the password becomes unusable, the credential
    version moves on (every session and JWT ends), no sign-in code stays, and
    the address is a placeholder no one can type a code or a reset link to
    (selectors.customer_by_email skips erased accounts). Runs inside the
    erasure's transaction."""
    with transaction.atomic(savepoint=False):
        customer = Customer.objects.select_for_update().get(pk=customer.pk)
        customer.email = erased_email(customer)
        customer.first_name = ERASED_TEXT
        customer.last_name = ERASED_TEXT
        customer.phone = ""
        customer.sms_phone = ""
        customer.sms_consent_at = None
        customer.sms_consent_source = ""
        customer.password = make_password(None)
        customer.credential_version += 1
        customer.erased_at = timezone.now()
        customer.save()
        CustomerSignIn.objects.filter(customer=customer).update(ip=None, user_agent="")
        SignInCode.objects.filter(customer=customer).delete()
        # The throttles' counters are keyed by client address: the customer's
        # go (they only hold a count for a minute or so).
        for ip in footprint.ips:
            RateCounter.objects.filter(key__contains=f":{ip}:").delete()
    return customer


def sign_ins_purge() -> int:
    """Delete the sign-in records older than SIGN_IN_RECORD_DAYS (the daily
    schedule "payments-purge-sign-ins"). The number deleted."""
    cutoff = timezone.now() - timedelta(days=SIGN_IN_RECORD_DAYS)
    deleted, _ = CustomerSignIn.objects.filter(at__lt=cutoff).delete()
    return deleted
