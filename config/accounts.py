"""Accounts that are not Django users (merchants, customers): one rule for
registering one and one for signing in, whichever kind it is. The password rule
itself is `config.models.PasswordCredentials`."""

from collections.abc import Callable
from dataclasses import dataclass

from django.db import IntegrityError, transaction

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
