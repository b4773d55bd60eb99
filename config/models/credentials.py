"""Password handling for the account kinds that are not Django users (merchants,
customers): one rule for setting a password and revoking what was issued before."""

from django.contrib.auth.hashers import check_password, make_password


class PasswordCredentials:
    """For a model with `password` and `credential_version` fields. Setting a
    password moves the version on, which revokes every JWT issued before it
    (config/api/auth.py compares the version on every use); save both fields."""

    password: str
    credential_version: int

    def set_password(self, raw_password: str) -> None:
        self.password = make_password(raw_password)
        self.credential_version += 1

    def check_password(self, raw_password: str) -> bool:
        return check_password(raw_password, self.password)
