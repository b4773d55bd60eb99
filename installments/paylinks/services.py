"""Making and revoking pay links (DESIGN section 17)."""

from django.db import transaction
from django.utils import timezone

from ..plans.errors import PlanNotCollectable
from ..plans.models import PaymentPlan
from . import tokens
from .models import LIFETIME, PayLink, new_pay_link_id
from .selectors import plan_dues

CreatedBy = PayLink.CreatedBy


def _new(*, plan_pk: int, created_by: str, source: str | None = None) -> PayLink:
    public_id, now = new_pay_link_id(), timezone.now()
    return PayLink(
        public_id=public_id,
        created_at=now,
        expires_at=now + LIFETIME,
        plan_id=plan_pk,
        token_hash=tokens.token_hash(tokens.token_of(public_id)),
        created_by=created_by,
        source=source,
    )


def pay_link_create(*, plan: PaymentPlan, created_by: str) -> PayLink:
    """A new link to `plan`'s pay page (its URL: `pay_link_url`)."""
    link = _new(plan_pk=plan.pk, created_by=created_by)
    link.save()
    return link


def pay_link_create_for_merchant(*, plan: PaymentPlan) -> PayLink:
    """The merchant's link to send through its own channels: only for a plan
    with something to pay (else PlanNotCollectable)."""
    if not plan_dues(plan).anything:
        raise PlanNotCollectable(
            "This plan has nothing to pay now: every installment is paid or being "
            "collected, or the plan is not active."
        )
    return pay_link_create(plan=plan, created_by=CreatedBy.MERCHANT)


def pay_links_for_messages(plans: dict[str, int]) -> dict[str, int]:
    """{source: link pk} for {source: plan pk}, `source` naming a message
    (`<kind>:<subject>`): the link made for it the first time it was recorded,
    else a new one. Rows are inserted with ON CONFLICT DO NOTHING, so two
    runs recording one message make one link."""
    if not plans:
        return {}
    PayLink.objects.bulk_create(
        [
            _new(plan_pk=plan_pk, created_by=CreatedBy.MESSAGE, source=source)
            for source, plan_pk in plans.items()
        ],
        ignore_conflicts=True,
    )
    return dict(
        PayLink.objects.filter(source__in=list(plans)).values_list("source", "id")
    )


def pay_link_url(link: PayLink) -> str:
    """The link's URL: its token derived again from its id under the server key
    (or a previous key still in SECRET_KEY_FALLBACKS, for a link made before a
    rotation). A link older than every key still kept is given the current
    key's token: a copy sent before then stops opening."""
    for secret in tokens.server_keys():
        token = tokens.token_of(link.public_id, secret=secret)
        if tokens.token_hash(token) == link.token_hash:
            return tokens.url_of_token(token)
    token = tokens.token_of(link.public_id)
    link.token_hash = tokens.token_hash(token)
    PayLink.objects.filter(pk=link.pk).update(token_hash=link.token_hash)
    return tokens.url_of_token(token)


def pay_link_used(link: PayLink) -> None:
    PayLink.objects.filter(pk=link.pk).update(last_used_at=timezone.now())


def pay_links_revoke(*, links) -> int:
    """Revoke `links` (a queryset) that are not revoked yet: their pages say so
    at once. How many it revoked."""
    with transaction.atomic():
        return links.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
