"""A customer's erasure (installments.privacy, DESIGN section 18) reaching the
checkout: the address a merchant gave when creating a session for them."""

from payments.customers.privacy import Footprint

from ..models import CheckoutSession


def checkout_sessions_scrub(footprint: Footprint) -> None:
    CheckoutSession.objects.filter(customer_email__iexact=footprint.email).update(
        customer_email=""
    )
