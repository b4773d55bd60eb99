"""The hosted checkout (`/checkout/<token>`), payment links (`/l/<slug>`),
`widget.js` and the widget demo page (DESIGN section 11).

Server-rendered; the customer signs in with their customer account (a session
login, payments/customers/session.py) by posting the sign-in and registration
forms the `/account/` pages post too (payments/customers/forms.py). Paying calls
the same service as `POST /api/v1/checkout/sessions/<token>/complete`, so the
page and the API obey the same rules. Adding a payment method goes through the
`/account/` method pages, which send the customer back here with the new method
selected.

The pages run under the site's Content-Security-Policy (no inline script or
style) and may be framed by the widget's iframe, but only by this site and the
session's merchant's own site (`frame-ancestors`, set by the security-headers
middleware when a page calls `allow_framing_by`).
"""

from django.http import HttpResponseRedirect, JsonResponse
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.cache import (
    add_never_cache_headers,
    patch_cache_control,
    patch_vary_headers,
)
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_GET, require_POST

from config.api.errors import DomainError
from config.web.security_headers import (
    allow_form_targets,
    allow_framing_by,
    origin_of,
)
from config.web.session_auth import see_other
from installments.plans import rules
from installments.plans import selectors as plan_selectors
from payments.customers.forms import CustomerRegisterForm, CustomerSignInForm
from payments.customers.session import customer_sign_out, session_customer
from payments.gateway.processors import processor_of
from payments.gateway.selectors import processor_page_origins
from payments.methods.selectors import payment_methods_chargeable

from . import selectors, services
from .consent import TERMS_UNTICKED, consent_of
from .key_facts import key_facts_display, session_key_facts
from .models import CheckoutSession
from .offline_choice import (
    deposit_choices,
    deposit_offline_posted,
    offline_deposit_waiting,
)
from .plan_choice import (
    PREFERRED_DAY_OPTIONS,
    int_or_none,
    plan_choice,
    plan_options,
    plan_terms,
    preferred_day_choice,
    preview_display,
)

# The two forms of the sign-in page, by the name their URL gives. They share the
# page: each name prefixes its form's element ids, keeping every label on its input.
AUTH_FORMS = {"sign_in": CustomerSignInForm, "register": CustomerRegisterForm}
UNAVAILABLE = {
    "unknown": (
        404,
        "Checkout not found",
        "This checkout link is not valid. Go back to the shop and start again.",
    ),
    "expired": (
        410,
        "This checkout has expired",
        "Checkouts are open for 30 minutes. Go back to the shop and start again; "
        "nothing was charged.",
    ),
    "completed": (
        200,
        "This order is already paid",
        "The deposit for this order was paid. Sign in to your account to see the plan.",
    ),
    "closed": (
        404,
        "This checkout is not available",
        "The shop cannot take payments at the moment. Nothing was charged.",
    ),
    "link": (
        404,
        "This payment link is no longer available",
        "The shop has switched this link off. Ask the shop for a new one.",
    ),
}


def _page(request, template, context, *, status=200, merchant=None):
    """A checkout page under the site's full Content-Security-Policy, frameable
    by this site and the merchant's own (config/web/security_headers.py). Its
    script posts the widget's messages only to the merchant's origin and ours."""
    context["merchant_origin"] = origin_of(merchant.business_url) if merchant else None
    response = TemplateResponse(request, template, context, status=status)
    allow_framing_by(request, [merchant.business_url] if merchant else [])
    add_never_cache_headers(response)
    return response


def _unavailable(request, kind: str, session=None):
    status, heading, message = UNAVAILABLE[kind]
    return _page(
        request,
        "checkout/unavailable.html",
        {"kind": kind, "heading": heading, "message": message, "session": session},
        status=status,
        merchant=session.merchant if session is not None else None,
    )


def _checkout_url(session) -> str:
    return reverse("checkout-page", args=[session.token])


def _open_session(request, token):
    """(session, None) for a session a customer can pay now, else (session or
    None, the page that says why)."""
    session = selectors.session_by_token(token)
    if session is None:
        return None, _unavailable(request, "unknown")
    state = session.status_at()
    if state == CheckoutSession.Status.COMPLETED:
        customer = session_customer(request)
        if customer is not None and session.plan.customer_id == customer.pk:
            return session, HttpResponseRedirect(reverse("checkout-done", args=[token]))
        return session, _unavailable(request, "completed", session)
    if state == CheckoutSession.Status.EXPIRED:
        return session, _unavailable(request, "expired", session)
    if not session.merchant.is_active:
        return session, _unavailable(request, "closed", session)
    return session, None


def _pay_page(request, session, customer, *, error="", status=200):
    options = plan_options(session, customer)
    choice = plan_choice(request, options)
    terms, preview_error = plan_terms(session, customer, choice)
    # Only the methods of the session's side: a test checkout offers the
    # customer's test methods, a live one their live methods.
    methods = payment_methods_chargeable(customer, livemode=session.merchant.livemode)
    # "Add a card" is answered with a redirect to the processor's card page
    # (of the session's side: the sandbox's for a test checkout).
    allow_form_targets(
        request, processor_page_origins(processor=processor_of(session.merchant))
    )
    wanted = request.POST.get("payment_method_id") or request.GET.get("method")
    selected = next(
        (method.public_id for method in methods if method.public_id == wanted),
        methods[0].public_id if methods else "",
    )
    return _page(
        request,
        "checkout/pay.html",
        {
            "session": session,
            "customer": customer,
            "options": options,
            "schedule": choice.schedule,
            "count": choice.count,
            "preferred_day": rules.preferred_day_stored(choice.preferred_day),
            "preferred_day_options": PREFERRED_DAY_OPTIONS,
            "has_monthly": any(
                kind == rules.MONTHLY for kind, _ in options["schedules"]
            ),
            "preview": preview_display(terms, session.currency) if terms else None,
            "facts": terms and key_facts_display(session_key_facts(session, terms)),
            "preview_error": options["refusal"] or preview_error,
            "methods": methods,
            "selected_method": selected,
            **deposit_choices(request, session, methods),
            "error": error,
            "here": _checkout_url(session),
        },
        status=status,
        merchant=session.merchant,
    )


def _auth_page(request, session, *, refused=None, status=200):
    """Both forms, the e-mail pre-filled; `refused` ({name: form}) is the one just
    posted and refused, shown with its values and errors."""
    forms = {
        name: form_class(
            initial={"email": session.customer_email}, auto_id=f"{name}_%s"
        )
        for name, form_class in AUTH_FORMS.items()
    }
    forms.update(refused or {})
    return _page(
        request,
        "checkout/auth.html",
        {
            "session": session,
            "sign_in_form": forms["sign_in"],
            "register_form": forms["register"],
        },
        status=status,
        merchant=session.merchant,
    )


# --- views -------------------------------------------------------------------------


def _framed_by_another_site(request) -> bool:
    """Loaded in an iframe of a page on another site (the widget's iframe mode on
    the merchant's site): the browser sends no SameSite=Lax cookie there, so
    signing in could never work in this frame (docs/decisions.md)."""
    return (
        request.headers.get("Sec-Fetch-Dest") == "iframe"
        and request.headers.get("Sec-Fetch-Site") == "cross-site"
    )


@require_GET
def checkout_page(request, token):
    session, refusal = _open_session(request, token)
    if refusal is not None:
        return refusal
    if _framed_by_another_site(request):
        response = _page(
            request,
            "checkout/new_window.html",
            {"session": session, "here": _checkout_url(session)},
            merchant=session.merchant,
        )
        patch_vary_headers(response, ["Sec-Fetch-Dest", "Sec-Fetch-Site"])
        return response
    customer = session_customer(request)
    if customer is None:
        return _auth_page(request, session)
    if offline_deposit_waiting(session, customer) is not None:
        return see_other(reverse("checkout-deposit", args=[token]))
    return _pay_page(request, session, customer)


@require_POST
@sensitive_post_parameters("password")
def checkout_sign_in(request, token, form_name):
    """Sign in or register (`form_name`, one of AUTH_FORMS) and come back to pay."""
    session, refusal = _open_session(request, token)
    if refusal is not None:
        return refusal
    form = AUTH_FORMS[form_name](request.POST, auto_id=f"{form_name}_%s")
    customer, status = form.submit(request, page="checkout")
    if customer is None:
        return _auth_page(request, session, refused={form_name: form}, status=status)
    return see_other(_checkout_url(session))


@require_POST
def checkout_sign_out(request, token):
    customer_sign_out(request)
    return see_other(reverse("checkout-page", args=[token]))


@require_GET
def checkout_preview(request, token):
    """The live preview behind the plan chooser (JSON, for the page's script)."""
    session, refusal = _open_session(request, token)
    customer = session_customer(request)
    if refusal is not None or customer is None:
        return JsonResponse(
            {"ok": False, "error": {"message": "Reload the page."}}, status=409
        )
    options = plan_options(session, customer)
    terms, problem = plan_terms(session, customer, plan_choice(request, options))
    if terms is None:
        return JsonResponse(
            {"ok": False, "error": {"message": options["refusal"] or problem}},
            status=422,
        )
    facts = session_key_facts(session, terms)
    key_facts_html = render_to_string(
        "checkout/_key_facts.html", {"facts": key_facts_display(facts)}
    )
    response = JsonResponse(
        {
            "ok": True,
            "data": {
                **preview_display(terms, session.currency),
                "key_facts": facts,
                "key_facts_html": key_facts_html,
            },
        }
    )
    add_never_cache_headers(response)
    return response


@require_POST
def checkout_pay(request, token):
    session, refusal = _open_session(request, token)
    if refusal is not None:
        return refusal
    customer = session_customer(request)
    if customer is None:
        return see_other(_checkout_url(session))
    consent = consent_of(request, bool(request.POST.get("terms_accepted")))
    if consent is None:
        return _pay_page(request, session, customer, error=TERMS_UNTICKED, status=422)
    count = int_or_none(request.POST.get("installment_count"))
    schedule = request.POST.get("schedule_type", "")[:32]
    choice = dict(
        token=token,
        customer=customer,
        schedule_type=schedule,
        installment_count=count if count is not None else -1,
        payment_method_id=request.POST.get("payment_method_id", "")[:40],
        preferred_day=preferred_day_choice(request.POST.get("preferred_day"), schedule),
        consent=consent,
    )
    try:
        if deposit_offline_posted(request, choice):
            return see_other(reverse("checkout-deposit", args=[token]))
        services.session_complete(**choice)
    except DomainError as error:
        session.refresh_from_db()
        if session.status_at() != CheckoutSession.Status.OPEN:
            return see_other(_checkout_url(session))
        return _pay_page(
            request, session, customer, error=error.message, status=error.http_status
        )
    return see_other(reverse("checkout-done", args=[token]))


@require_GET
def checkout_done(request, token):
    """The plan, with its due dates, and the way back to the shop."""
    session = selectors.session_by_token(token)
    customer = session_customer(request)
    if (
        session is None
        or session.status != CheckoutSession.Status.COMPLETED
        or customer is None
        or session.plan.customer_id != customer.pk
    ):
        return see_other(reverse("checkout-page", args=[token]))
    plan = plan_selectors.plans_with_installments().get(pk=session.plan_id)
    link = session.payment_link
    return _page(
        request,
        "checkout/done.html",
        {
            "session": session,
            "plan": plan,
            "continue_url": (link.redirect_url if link else "")
            or reverse("account:overview"),
        },
        merchant=session.merchant,
    )


@require_GET
def payment_link(request, slug):
    """An active link opens a fresh session and sends the visitor to it."""
    link = selectors.payment_link_by_slug(slug)
    if link is None or not link.is_active or not link.merchant.is_active:
        return _unavailable(request, "link")
    session = services.payment_link_session_open(link=link)
    response = HttpResponseRedirect(_checkout_url(session))
    add_never_cache_headers(response)
    return response


@require_GET
def widget_js(request):
    response = TemplateResponse(
        request, "checkout/widget.js", {}, content_type="text/javascript"
    )
    patch_cache_control(response, public=True, max_age=3600)
    return response


@require_GET
def widget_demo(request):
    """A merchant's product page embedding the widget. The session token comes
    from the query (`?session_token=fcs_...`): a merchant's server would create
    it with its API key, which never reaches a browser."""
    token = request.GET.get("session_token", "")
    session = selectors.session_by_token(token) if token else None
    response = TemplateResponse(
        request,
        "checkout/demo.html",
        {
            "token": session.token if session else "",
            "session": session,
            "paid": request.GET.get("paid") == "1",
        },
    )
    add_never_cache_headers(response)  # it shows a session token
    return response
