from config.api.ids import looks_like_public_id

from .models import Customer


def customer_by_public_id(public_id: str) -> Customer | None:
    if not looks_like_public_id(public_id, "cus"):
        return None
    return Customer.objects.filter(public_id=public_id).first()


def customer_by_email(email: str) -> Customer | None:
    return Customer.objects.filter(email__iexact=email.strip()).first()
