"""Use-cases of the pay page: a new link sent to the contacts on file."""

from django.db import transaction

from ..notifications import texts
from ..notifications.services import messages_send_on_commit
from ..paylinks.models import PayLink
from ..paylinks.selectors import plan_dues
from ..paylinks.services import pay_link_create


@transaction.atomic(durable=True)
def pay_link_resend(*, link: PayLink) -> PayLink | None:
    """ "Send me a new link" on the page of `link` (its plan, merchant and
    customer loaded): a new link to the same plan, recorded with its messages
    to the customer's e-mail address and phone number on file (a `pay_link`
    message, its subject the new link's id) in one transaction, sent after the
    commit. None, sending nothing, when the plan has nothing to pay."""
    plan = link.plan
    if not plan_dues(plan).anything:
        return None
    new = pay_link_create(plan=plan, created_by=PayLink.CreatedBy.CUSTOMER)
    messages_send_on_commit(texts.pay_link(new, plan=plan), task_name="send-pay-link")
    return new
