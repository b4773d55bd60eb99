"""Dashboard pages of `payments`: the wallet (balances, collections chart,
transactions, payouts) and the payout bank account (DESIGN §8, §12).

HTTP in/out only: balances and transactions come from the selectors of endpoint
9, the payout account is saved by `payout_account_set`; every query is scoped to
the signed-in merchant.
"""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views import View

from config.api.errors import DomainError
from config.exports import csv_response
from config.web.pager import page_of, query_without
from config.web.session_auth import see_other
from merchants.audit.actors import actor_from_request
from merchants.dashboard.auth import MerchantLoginRequiredMixin

from ..gateway import selectors as gateway_selectors
from ..gateway.errors import AccountNotResolved
from ..gateway.processors import processor_of
from ..ledger import selectors as ledger_selectors
from ..ledger.exports import REFUNDS, WALLET_TRANSACTIONS
from ..ledger.models import LedgerTransaction
from ..ledger.serializers import wallet_transaction_output
from ..payouts import selectors as payout_selectors
from ..payouts import services as payout_services
from ..payouts.exports import PAYOUTS, SETTLEMENT
from ..payouts.serializers import payout_output, settlement_line_output
from . import selectors
from .chart import collections_chart
from .forms import PayoutAccountForm

TRANSACTIONS_PAGE_SIZE = 20
PAYOUTS_PAGE_SIZE = 10
REFUNDS_PAGE_SIZE = 10

Kind = LedgerTransaction.Kind
# What each movement is, for people (the API's `type` stays the kind).
KIND_LABELS = {
    Kind.COLLECTION: "Collection",
    Kind.PAYOUT: "Payout",
    Kind.PAYOUT_RETURNED: "Payout returned",
    Kind.REFUND: "Refund to a customer",
    Kind.REFUND_SETTLED: "Refund paid to the customer",
    Kind.REFUND_RETURNED: "Refund failed: money back",
}
CHART_DAYS = 90


def _url(name: str) -> str:
    return reverse(f"payments_dashboard:{name}")


def _bank_name(merchant, code: str) -> str:
    """The bank's name for people, or its code when the processor's list cannot
    be read just now. From the list of the merchant's side's processor (the
    test side's: the sandbox's), as the account was checked against it."""
    try:
        bank = gateway_selectors.bank_by_code(code, processor=processor_of(merchant))
    except DomainError:
        bank = None
    return bank.name if bank else code


def line_ids(*, resource_type, resource_id, reference, description) -> list:
    """The ids shown under a wallet line, each once: what it was for (unless
    its description or its processor reference already names it, as
    `inst_…_a1` names `inst_…`, and a payout's reference is its own id), then
    the processor reference (unless the description names it)."""
    text, reference = description or "", reference or ""
    named = resource_id in text or reference.startswith(resource_id)
    ids = []
    if resource_id and not named:
        ids.append((resource_type, resource_id))
    if reference and reference not in text:
        ids.append(("processor reference", reference))
    return ids


PAYOUT_DESCRIPTIONS = {
    Kind.PAYOUT: "Payout to",
    Kind.PAYOUT_SETTLED: "Payout paid to",
}


def with_bank_names(merchant, rows) -> None:
    """A payout's line names the bank it went to rather than its code (the
    ledger, and so the API, keeps `Payout to 058 ••••1234`)."""
    ids = [row["resource_id"] for txn, row in rows if txn.kind in PAYOUT_DESCRIPTIONS]
    if not ids:
        return
    payouts = payout_selectors.payouts_by_id(merchant, ids)
    for txn, row in rows:
        payout = payouts.get(row["resource_id"])
        if txn.kind in PAYOUT_DESCRIPTIONS and payout is not None:
            bank = _bank_name(merchant, payout.bank_code)
            row["description"] = (
                f"{PAYOUT_DESCRIPTIONS[txn.kind]} {bank} ••••{payout.account_last4}"
            )


def wallet_rows(merchant, transactions, refunds) -> list[tuple]:
    """The wallet page's lines as (transaction, the API's row with the ids to
    show once); the refunds list's lines get their labels too."""
    for txn in (*transactions, *refunds):
        txn.label = KIND_LABELS.get(txn.kind, txn.get_kind_display())
        txn.fee_share = abs(txn.fee)
    rows = [(txn, wallet_transaction_output(txn)) for txn in transactions]
    with_bank_names(merchant, rows)
    for _txn, row in rows:
        row["ids"] = line_ids(
            resource_type=row["resource_type"],
            resource_id=row["resource_id"],
            reference=row["reference"],
            description=row["description"],
        )
    for txn in refunds:
        # The refund's id is in its description: only the payment refunded.
        txn.shown_refund_id = txn.resource_id not in (txn.description or "")
    return rows


class WalletView(MerchantLoginRequiredMixin, View):
    permission = "wallet"

    def get(self, request):
        merchant = request.merchant
        balances = ledger_selectors.wallet_balances(merchant)
        transactions = page_of(
            request,
            ledger_selectors.wallet_transactions(merchant, count=balances.transactions),
            TRANSACTIONS_PAGE_SIZE,
        )
        payouts = page_of(
            request,
            payout_selectors.payouts_of(merchant),
            PAYOUTS_PAGE_SIZE,
            "payouts_page",
        )
        refunds = page_of(
            request,
            selectors.refund_movements(merchant),
            REFUNDS_PAGE_SIZE,
            "refunds_page",
        )
        rows = wallet_rows(merchant, transactions.object_list, refunds.object_list)
        for payout in payouts.object_list:
            payout.bank_name = _bank_name(merchant, payout.bank_code)
        return TemplateResponse(
            request,
            "payments/dashboard/wallet.html",
            {
                "balances": balances,
                # What a negative balance owes: collections cover it first.
                "owed": max(0, -balances.available_balance),
                "chart": collections_chart(
                    selectors.daily_collections(merchant, days=CHART_DAYS)
                ),
                "chart_days": CHART_DAYS,
                "transactions": transactions,
                "rows": rows,
                "transactions_query": query_without(request),
                "payouts": payouts,
                "payouts_query": query_without(request, "payouts_page"),
                "refunds": refunds,
                "refunds_query": query_without(request, "refunds_page"),
                "refunds_in_transit": selectors.refunds_in_transit(merchant),
                "bank_name": _bank_name(merchant, merchant.payout_bank_code)
                if merchant.payout_bank_code
                else "",
                "minimum_payout": payout_services.MINIMUM_PAYOUT,
            },
        )


class PayoutAccountView(MerchantLoginRequiredMixin, View):
    permission = "wallet"
    change_permission = "payout_account"
    fresh_code_for_changes = True

    template_name = "payments/dashboard/payout_account.html"

    def get(self, request):
        merchant = request.merchant
        initial = {
            "bank_code": merchant.payout_bank_code,
            "account_number": merchant.payout_account_number,
        }
        return self._render(request, initial=initial)

    def post(self, request):
        return self._render(request, data=request.POST)

    def _render(self, request, *, data=None, initial=None):
        try:
            banks = gateway_selectors.banks(processor=processor_of(request.merchant))
        except DomainError as error:
            return TemplateResponse(
                request,
                self.template_name,
                {"unavailable": error.message},
                status=503,
            )
        form = PayoutAccountForm(banks, data=data, initial=initial)
        if data is not None:
            if form.is_valid() and self._save(request, form):
                merchant = request.merchant
                messages.success(
                    request,
                    "Payout account saved: the bank says it belongs to "
                    f"{merchant.payout_account_name}.",
                )
                return see_other(_url("wallet"))
            status = 400
        else:
            status = 200
        return TemplateResponse(
            request,
            self.template_name,
            {
                "form": form,
                "bank_name": _bank_name(
                    request.merchant, request.merchant.payout_bank_code
                )
                if request.merchant.payout_bank_code
                else "",
            },
            status=status,
        )

    def _save(self, request, form) -> bool:
        try:
            request.merchant = payout_services.payout_account_set(
                merchant=request.merchant,
                **form.cleaned_data,
                actor=actor_from_request(request),
            )
        except ValidationError as error:
            for field, texts in error.message_dict.items():
                for text in texts:
                    form.add_error(field if field in form.fields else None, text)
            return False
        except AccountNotResolved as error:
            form.add_error("account_number", error.message)
            return False
        except DomainError as error:
            form.add_error(None, error.message)
            return False
        return True


# CSV downloads of the wallet page's lists (DESIGN section 16): streamed
# (config.exports) and scoped to the signed-in merchant; another merchant's
# payout id is a 404.


class WalletTransactionsCsv(MerchantLoginRequiredMixin, View):
    permission = "wallet"

    def get(self, request):
        merchant = request.merchant
        return csv_response(
            WALLET_TRANSACTIONS,
            ledger_selectors.wallet_transactions(merchant),
            merchant_id=merchant.public_id,
            output=wallet_transaction_output,
        )


class RefundsCsv(MerchantLoginRequiredMixin, View):
    permission = "wallet"

    def get(self, request):
        merchant = request.merchant
        return csv_response(
            REFUNDS,
            selectors.refund_movements(merchant),
            merchant_id=merchant.public_id,
        )


class PayoutsCsv(MerchantLoginRequiredMixin, View):
    permission = "wallet"

    def get(self, request):
        merchant = request.merchant
        return csv_response(
            PAYOUTS,
            payout_selectors.payouts_of(merchant),
            merchant_id=merchant.public_id,
            output=payout_output,
        )


class PayoutSettlementCsv(MerchantLoginRequiredMixin, View):
    permission = "wallet"

    def get(self, request, payout_id):
        merchant = request.merchant
        payout = payout_selectors.payout_of(merchant, payout_id)
        if payout is None:
            raise Http404("No payout of yours has this id.")
        return csv_response(
            SETTLEMENT,
            payout_selectors.settlement_report(payout),
            merchant_id=merchant.public_id,
            output=settlement_line_output,
            name=f"settlement_{payout.public_id}",
        )
