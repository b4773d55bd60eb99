"""The pay page's choice: what to pay (one installment, everything overdue, the
whole balance) and how (a saved method, a new card, a bank transfer, USSD),
checked against what the plan owes now."""

from dataclasses import dataclass

from django import forms

from payments.gateway.processors.base import USSD_BANKS

from ..paylinks.selectors import Dues
from ..plans.models import Installment


class What:
    INSTALLMENT = "installment"
    OVERDUE = "overdue"
    BALANCE = "balance"


class How:
    SAVED = "saved"  # a saved card or mandate, after the sign-in code
    CARD = "card"  # a new card, through the processor's card page
    BANK_TRANSFER = "bank_transfer"
    USSD = "ussd"


@dataclass(frozen=True)
class PayChoice:
    """What the customer chose: the installments it pays, in due order, and
    their amount (kobo, what is still owed of each); how, with the saved method
    (`how` saved) or the USSD bank code (`how` ussd)."""

    what: str
    installments: tuple[Installment, ...]
    amount: int
    how: str
    method: object | None = None  # payments.methods.models.PaymentMethod
    bank: str = ""


class PayChoiceForm(forms.Form):
    what = forms.ChoiceField(
        choices=[
            (What.INSTALLMENT, "One installment"),
            (What.OVERDUE, "Everything overdue"),
            (What.BALANCE, "The whole balance"),
        ]
    )
    installment_id = forms.CharField(max_length=40, required=False)
    how = forms.ChoiceField(
        choices=[
            (How.SAVED, "A saved card or bank account"),
            (How.CARD, "A new card"),
            (How.BANK_TRANSFER, "Bank transfer"),
            (How.USSD, "USSD"),
        ]
    )
    payment_method_id = forms.CharField(max_length=40, required=False)
    bank = forms.ChoiceField(
        choices=[("", "Choose your bank"), *USSD_BANKS.items()], required=False
    )

    def __init__(self, *args, dues: Dues, methods: list, **kwargs):
        super().__init__(*args, **kwargs)
        self.dues, self.methods = dues, methods

    def _installments(self, what: str) -> list[Installment]:
        if what == What.BALANCE:
            rows = self.dues.payable
        elif what == What.OVERDUE:
            rows = self.dues.overdue
            if not rows:
                raise forms.ValidationError("Nothing is overdue on this plan.")
        else:
            wanted = self.cleaned_data.get("installment_id", "")
            rows = [row for row in self.dues.payable if row.public_id == wanted]
            if not rows:
                raise forms.ValidationError(
                    "Choose one of the installments listed as due."
                )
        if not rows:
            raise forms.ValidationError("This plan has nothing to pay now.")
        return rows

    def _method(self, how: str):
        if how != How.SAVED:
            return None
        wanted = self.cleaned_data.get("payment_method_id", "")
        for method in self.methods:
            if method.public_id == wanted:
                return method
        raise forms.ValidationError("Choose one of your saved payment methods.")

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        rows = self._installments(data["what"])
        method = self._method(data["how"])
        if data["how"] == How.USSD and not data.get("bank"):
            raise forms.ValidationError("Choose the bank whose USSD code you dial.")
        self.choice = PayChoice(
            what=data["what"],
            installments=tuple(rows),
            amount=sum(row.amount_owed for row in rows),
            how=data["how"],
            method=method,
            bank=data.get("bank", "") if data["how"] == How.USSD else "",
        )
        return data
