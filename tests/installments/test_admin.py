"""Staff read plans with their installments, attempts and history; nobody edits
them in the admin."""

from checkout.models import PaymentLink


def test_staff_see_a_plan_with_its_installments_read_only(admin_client, plan_active):
    plan = plan_active.plan

    listing = admin_client.get("/admin/installments/paymentplan/")
    detail = admin_client.get(f"/admin/installments/paymentplan/{plan.pk}/change/")
    changes = admin_client.get("/admin/installments/installmentstatuschange/")

    assert listing.status_code == 200 and plan.public_id in listing.content.decode()
    page = detail.content.decode()
    assert detail.status_code == 200
    for installment in plan.installments.all():
        assert installment.public_id in page
    assert f"{plan.public_id}_d1" in page
    assert 'name="_save"' not in page
    assert changes.status_code == 200
    add = admin_client.get("/admin/installments/paymentplan/add/")
    assert add.status_code == 403


def test_staff_can_switch_a_payment_link_off(admin_client, merchant_with_key):
    link = PaymentLink.objects.create(
        merchant=merchant_with_key.merchant,
        title="Chair",
        amount=50_000,
        currency="NGN",
    )

    response = admin_client.post(
        f"/admin/checkout/paymentlink/{link.pk}/change/", {"is_active": ""}
    )

    assert response.status_code == 302
    link.refresh_from_db()
    assert link.is_active is False
    assert admin_client.get("/admin/checkout/paymentlink/").status_code == 200
