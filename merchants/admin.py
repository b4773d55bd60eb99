"""Staff approve, enable API access and suspend merchants here (DESIGN section 12).

No key material is ever shown: keys appear only as masked prefixes, and password
hashes are excluded from every form.

Staff see accounts by their live row (test mode, DESIGN section 21): the list and
every action (approve, API access, suspend) are the live rows' only, and a
merchant's page shows its test side read-only, on one line (its id and its
keys). A test side is never approved, edited or suspended here: it follows its
account.
"""

from django.contrib import admin, messages
from django.template.response import TemplateResponse

from config.admin import ReadOnlyAdminMixin

from . import selectors, services
from .audit.actors import actor_from_request
from .audit.services import changes_between
from .models import ApiKey, Merchant
from .team.models import Member


class ApiKeyInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = ApiKey
    fields = ("name", "masked_prefix", "created_at", "revoked_at")
    readonly_fields = fields
    show_change_link = False


class MemberInline(ReadOnlyAdminMixin, admin.TabularInline):
    """The team, read only: members manage themselves on the dashboard. No
    password hash or second-factor secret is shown."""

    model = Member
    fields = ("email", "role", "refund_limit", "status", "created_at", "removed_at")
    readonly_fields = fields
    show_change_link = False


def _confirmed_action(label: str, verb: str, apply, *, note: str = "", after=None):
    """An admin action that first shows a confirmation page listing the merchants
    (and `note`, what the action does not do); `apply(merchant, actor)` runs it
    for the staff user, who the audit log names; `after(merchants)` may return
    a warning to show once it is done."""

    def action(modeladmin, request, queryset):
        if request.POST.get("confirm") == "yes":
            actor = actor_from_request(request)
            done = [apply(merchant, actor) for merchant in queryset]
            modeladmin.message_user(
                request, f"{verb} {len(done)} merchant(s).", messages.SUCCESS
            )
            warning = after(done) if after else ""
            if warning:
                modeladmin.message_user(request, warning, messages.WARNING)
            return None
        return TemplateResponse(
            request,
            "admin/merchants/confirm_action.html",
            {
                **modeladmin.admin_site.each_context(request),
                "title": f"{label}: are you sure?",
                "label": label,
                "note": note,
                "merchants": queryset,
                "action": request.POST.get("action"),
                "selected": request.POST.getlist(admin.helpers.ACTION_CHECKBOX_NAME),
                "opts": modeladmin.model._meta,
            },
        )

    action.short_description = label
    action.__name__ = label.lower().replace(" ", "_")
    return action


def _api_access_still_off(merchants) -> str:
    off = [m for m in merchants if not m.api_access_enabled]
    if not off:
        return ""
    names = ", ".join(f"{m.business_name} ({m.public_id})" for m in off)
    return (
        f"API access is still off for {names}: they can sign in to the dashboard "
        'but cannot make API keys until you also choose "Enable API access".'
    )


# Approval and API access are two steps (DESIGN section 12, docs/operations.md):
# a merchant whose API access staff turned off keeps it off when approved again.
approve = _confirmed_action(
    "Approve",
    "Approved",
    lambda m, actor: services.merchant_approve(merchant=m, actor=actor),
    note=(
        "Approving makes the account active and sends the approval e-mail. It does "
        'not enable API access: that is the "Enable API access" action, with its own '
        "e-mail."
    ),
    after=_api_access_still_off,
)
enable_api_access = _confirmed_action(
    "Enable API access",
    "Enabled API access for",
    lambda m, actor: services.merchant_set_api_access(
        merchant=m, enabled=True, actor=actor
    ),
)
disable_api_access = _confirmed_action(
    "Disable API access",
    "Disabled API access for",
    lambda m, actor: services.merchant_set_api_access(
        merchant=m, enabled=False, actor=actor
    ),
)
suspend = _confirmed_action(
    "Suspend",
    "Suspended",
    lambda m, actor: services.merchant_suspend(merchant=m, actor=actor),
)


@admin.register(Merchant)
class MerchantAdmin(admin.ModelAdmin):
    list_display = (
        "public_id",
        "business_name",
        "email",
        "status",
        "api_access_enabled",
        "rate_plan",
        "created_at",
    )
    list_filter = ("status", "api_access_enabled", "rate_plan")
    search_fields = ("public_id", "email", "business_name", "business_url")
    readonly_fields = (
        "public_id",
        "test_side_facts",
        "status",
        "api_access_enabled",
        "approved_at",
        "approval_email_sent_at",
        "suspended_at",
        "created_at",
        "updated_at",
    )
    # No key material or webhook secret is ever shown (DESIGN section 12).
    exclude = ("webhook_secret",)
    fieldsets = (
        (
            "Account",
            {
                "fields": (
                    "public_id",
                    "test_side_facts",
                    "business_name",
                    "email",
                    "business_url",
                    "status",
                    "api_access_enabled",
                    "rate_plan",
                    "approved_at",
                    "approval_email_sent_at",
                    "suspended_at",
                    "created_at",
                    "updated_at",
                )
            },
        ),
        (
            "Plan configuration",
            {
                "fields": (
                    "allowed_schedule_types",
                    "min_installments",
                    "max_installments",
                    "min_deposit_percent",
                    "release_rule",
                    "partial_collection_min_percent",
                )
            },
        ),
        ("Webhooks", {"fields": ("webhook_url",)}),
        (
            "Payout account",
            {
                "fields": (
                    "payout_bank_code",
                    "payout_account_number",
                    "payout_account_name",
                )
            },
        ),
    )
    inlines = [MemberInline, ApiKeyInline]
    actions = [approve, enable_api_access, disable_api_access, suspend]
    list_per_page = 50
    ordering = ("-created_at",)

    def has_add_permission(self, request):
        # Merchants register themselves; staff review them.
        return False

    def get_queryset(self, request):
        # The live rows only: a test side is shown on its account's page
        # (`test_side_facts`), so no list, action or edit ever reaches one.
        return super().get_queryset(request).filter(livemode=True)

    @admin.display(description="Test side")
    def test_side_facts(self, merchant):
        """The account's test side, read only: its id and its API keys."""
        side = selectors.test_side_of(merchant) if merchant.pk else None
        if side is None:
            return "not made yet (no test key or test data)"
        keys = ApiKey.objects.filter(merchant=side)
        in_use = keys.filter(revoked_at__isnull=True).count()
        return f"{side.public_id}: {in_use} test key(s) in use, {keys.count()} made"

    def save_model(self, request, obj, form, change):
        """Staff's edits are saved as Django's admin saves them; a change of
        rate plan goes through its service, and the rest is recorded in the
        audit log, in the admin's transaction."""
        rate_plan = form.cleaned_data.get("rate_plan", obj.rate_plan)
        fields = [name for name in form.changed_data if name != "rate_plan"]
        stored = Merchant.objects.get(pk=obj.pk)
        changes = changes_between(stored, {name: getattr(obj, name) for name in fields})
        obj.rate_plan = stored.rate_plan
        super().save_model(request, obj, form, change)
        actor = actor_from_request(request)
        services.merchant_staff_edit(merchant=obj, changes=changes, actor=actor)
        if rate_plan != stored.rate_plan:
            services.merchant_set_rate_plan(
                merchant=obj, rate_plan=rate_plan, actor=actor
            )
            obj.refresh_from_db()


# The audit log's read-only admin, in its subpackage.
from .audit import admin as audit_admin  # noqa: E402, F401
