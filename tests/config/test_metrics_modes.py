"""Business figures at /metrics by side (test mode, DESIGN section 21;
docs/operations.md, "Metrics"): each carries `mode` (live, test), both shown
from 0, and the test side's plans, collections and deliveries move only the
`mode="test"` series."""

import pytest

from merchants import services as merchant_services
from payments.models import PaymentMethod

from ..api_contract.conftest import active_plan, offline_webhooks  # noqa: F401
from ..conftest import make_merchant_with_key
from ..factories import CustomerFactory
from ..metrics import scrape, value
from ..payments.conftest import add_card, sign_in

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("metrics_token")]

# The business figures: by side. The engine's and the outbox's backlog and
# the task queue's figures are the machinery's, which works both sides alike.
BY_MODE = {
    "installments_collections_total",
    "installments_collected_kobo_total",
    "installments_declines_total",
    "installments_plans",
    "installments_refunds_total",
    "installments_refunded_kobo_total",
    "webhooks_delivery_attempts_total",
    "webhooks_deliveries",
    "payments_verification_refunds",
    "payments_verification_refunds_kobo",
}


def test_every_business_figure_has_a_live_and_a_test_series():
    samples = scrape()
    for name in BY_MODE:
        modes = {
            dict(labels).get("mode") for sample, labels in samples if sample == name
        }
        assert modes == {"live", "test"}, name


@pytest.mark.usefixtures("offline_webhooks")
def test_the_test_sides_plans_move_only_the_test_series():
    account = make_merchant_with_key()
    test_row = merchant_services.test_side_for(account.merchant)
    test_row.webhook_url = "https://hooks.shop.example/test"
    test_row.webhook_secret = "s" * 24
    test_row.save()
    card = add_card(sign_in(CustomerFactory()), livemode=False)
    method = PaymentMethod.objects.get(public_id=card["id"])
    before = scrape()

    plan = active_plan(test_row, method)

    after = scrape()
    deposit = plan.deposit_amount

    def moved(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("installments_plans", status="active", mode="test") == 1
    assert moved("installments_plans", status="active", mode="live") == 0
    assert moved("installments_collections_total", kind="deposit", mode="test") == 1
    assert moved("installments_collections_total", kind="deposit") == 0
    assert moved("installments_collected_kobo_total", kind="deposit", mode="test") == (
        deposit
    )
    assert moved("installments_collected_kobo_total", kind="deposit", mode="live") == 0
    pending = moved("webhooks_deliveries", status="pending", mode="test")
    delivered = moved("webhooks_deliveries", status="delivered", mode="test")
    failed = moved("webhooks_deliveries", status="failed", mode="test")
    assert pending + delivered + failed >= 1
    for status in ("pending", "delivered", "failed"):
        assert moved("webhooks_deliveries", status=status, mode="live") == 0
