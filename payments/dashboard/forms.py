"""The payout account form of the dashboard.

The form only carries what the person chose; `payout_account_set` (the service of
`PUT .../payout-account`) checks the bank against the processor's list and the
account number, and resolves the holder's name.
"""

from django import forms


class PayoutAccountForm(forms.Form):
    bank_code = forms.ChoiceField(label="Bank")
    account_number = forms.CharField(
        label="Account number",
        help_text="Your 10-digit NUBAN account number.",
        widget=forms.TextInput(
            attrs={"inputmode": "numeric", "autocomplete": "off", "maxlength": 10}
        ),
    )

    def __init__(self, banks, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["bank_code"].choices = [
            ("", "Choose your bank"),
            *((bank.code, bank.name) for bank in sorted(banks, key=lambda b: b.name)),
        ]

    def clean_account_number(self):
        # People paste numbers with spaces ("0123 456 789"); the digits are what
        # the bank knows.
        return "".join(self.cleaned_data["account_number"].split())
