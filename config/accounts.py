"""Accounts that are not Django users (merchants, customers): one rule for
registering one, one for signing in and one password-reset link, whichever kind
it is. The password rule itself is `config.models.PasswordCredentials`."""

from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.http import base36_to_int

from config.api import login_guard
from config.api.passwords import validate_new_password


@dataclass(frozen=True)
class AccountKind:
    """`name` keys the sign-in throttle; `lookup(email)` finds an account of the
    kind (a `PasswordCredentials` model) or None; `taken` is the error of an
    e-mail address already registered."""

    name: str
    lookup: Callable[[str], object | None]
    taken: type[Exception]

    def register(self, account, *, email: str, password: str):
        """Save a new account (the unsaved model with its other fields) with
        `email`, normalized, and `password`: Django's password validators (a 400
        on `password`), then `taken` when the lookup finds the address or, when
        two registrations raced past the lookup, the unique index refuses the
        second."""
        account.email = email.strip().lower()
        validate_new_password(password, account=account)
        account.set_password(password)
        if self.lookup(account.email) is not None:
            raise self.taken()
        try:
            with transaction.atomic():
                account.save()
        except IntegrityError:
            raise self.taken() from None
        return account

    def sign_in(self, *, email: str, password: str, client_ip: str):
        """`login_guard.sign_in` for this kind: throttled, and the same answer
        for an unknown address and a wrong password."""
        return login_guard.sign_in(
            kind=self.name,
            email=email,
            password=password,
            client_ip=client_ip,
            lookup=self.lookup,
        )


class PasswordResetTokens(PasswordResetTokenGenerator):
    """The one password-reset token of every account kind: Django's scheme (a
    timestamped HMAC), keyed on the account's password hash, so a token stops
    working once it has been used (using it changes the hash) or once the
    password changed in any other way. `key_salt` names the kind (changing it
    ends every link already sent); `max_age_seconds` how long a link works
    (None: `PASSWORD_RESET_TIMEOUT`). The accounts have no last-login time to
    add."""

    def __init__(self, *, key_salt: str, max_age_seconds: int | None = None):
        super().__init__()
        self.key_salt = key_salt
        self.max_age_seconds = max_age_seconds

    def _now(self):
        # Django's reads the local wall time, which moves with the clocks and
        # which time_machine shifts by the zone's offset; UTC does neither.
        return timezone.now().replace(tzinfo=None)

    def _make_hash_value(self, user, timestamp):
        return f"{user.pk}{user.password}{timestamp}{user.email.lower()}"

    def lifetime_seconds(self) -> int:
        return self.max_age_seconds or settings.PASSWORD_RESET_TIMEOUT

    def check_token(self, user, token) -> bool:
        if not super().check_token(user, token):
            return False
        issued = base36_to_int(token.split("-")[0])
        return self._num_seconds(self._now()) - issued <= self.lifetime_seconds()

    def issued_mark(self, token: str) -> str:
        """The token's timestamp part: names one link (two asked for within
        the same second are the same link)."""
        return token.split("-")[0]
