"""The errors of the agreement record's reads."""

from config.api.errors import NotFound


class AgreementNotFound(NotFound):
    code = "agreement_not_found"
    message = (
        "This payment plan has no agreement record: it was made before agreements "
        "were recorded."
    )
