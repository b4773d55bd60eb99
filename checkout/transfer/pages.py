"""`/checkout/<token>/deposit`: the deposit paid by bank transfer or USSD
(DESIGN section 17). It shows the account to transfer to or the code to dial,
the exact amount and until when; checkout.js asks for it again every 15
seconds until the processor confirms the money, then goes on to the plan
(`checkout-done`), and "I have paid: check now" does the same without script.
Not a meta refresh: a page reloading itself on a timer takes a screen reader
back to its top (WCAG 2.2.1, axe-core's `meta-refresh` rule). An attempt that
expired says so and offers to choose again while the session is open."""

from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET

from config.web.session_auth import see_other
from installments.deposits.models import DepositAttempt
from payments.customers.session import session_customer

from .. import selectors
from ..key_facts import pending_plan_key_facts
from ..models import CheckoutSession
from ..offline_choice import offline_deposit_latest
from ..pages import _page

REFRESH_SECONDS = 15


@require_GET
def checkout_deposit(request, token):
    session = selectors.session_by_token(token)
    customer = session_customer(request)
    if session is None or customer is None:
        return see_other(reverse("checkout-page", args=[token]))
    if session.status == CheckoutSession.Status.COMPLETED:
        return see_other(reverse("checkout-done", args=[token]))
    attempt = offline_deposit_latest(session, customer)
    if attempt is None:
        return see_other(reverse("checkout-page", args=[token]))
    waiting = attempt.status == DepositAttempt.Status.PROCESSING
    return _page(
        request,
        "checkout/deposit.html",
        {
            "session": session,
            "attempt": attempt,
            "waiting": waiting,
            "expired": attempt.failure_reason == "expired",
            "expires_at": timezone.localtime(attempt.expires_at)
            if attempt.expires_at
            else None,
            "refresh_seconds": REFRESH_SECONDS if waiting else None,
            "can_retry": session.status_at() == CheckoutSession.Status.OPEN,
            "here": reverse("checkout-deposit", args=[token]),
            "facts": pending_plan_key_facts(session, attempt.plan) if waiting else None,
        },
        merchant=session.merchant,
    )
