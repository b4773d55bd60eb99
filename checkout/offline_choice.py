"""Paying the deposit by bank transfer or USSD on the hosted checkout (DESIGN
section 17): what the pay page offers, reading the customer's choice, and the
attempt a customer is waiting on. The pages are checkout/pages.py's and
checkout/transfer/pages.py's; the use-case is services/offline.py's."""

from config.api.errors import InvalidRequest
from installments.deposits.models import DepositAttempt
from payments.gateway.processors.base import USSD_BANKS, PayChannel

from . import services

METHOD = "method"  # the deposit charged on the chosen card or bank account
CHANNELS = (METHOD, *PayChannel.OFFLINE)


def deposit_choices(request, session, methods) -> dict:
    """The pay page's deposit choices, as posted or the defaults: the method
    when the customer has one, else a bank transfer."""
    channel = request.POST.get("deposit_channel", "")
    if channel not in CHANNELS or (channel == METHOD and not methods):
        channel = METHOD if methods else PayChannel.BANK_TRANSFER
    return {
        "deposit_channel": channel,
        "ussd_banks": list(USSD_BANKS.items()),
        "ussd_bank": request.POST.get("ussd_bank", ""),
        "manual_collection": session.merchant.manual_collection,
    }


def deposit_offline_posted(request, choice: dict) -> bool:
    """Open the deposit by transfer or USSD when that is what the customer
    chose (`choice`: the arguments of `session_complete`); False for a deposit
    charged on a method."""
    channel = request.POST.get("deposit_channel", "")
    if channel not in PayChannel.OFFLINE:
        return False
    bank = request.POST.get("ussd_bank", "")[:8] if channel == PayChannel.USSD else ""
    if channel == PayChannel.USSD and bank not in USSD_BANKS:
        raise InvalidRequest("Choose your bank to pay by USSD.")
    services.deposit_offline_start(**choice, channel=channel, ussd_bank=bank)
    return True


def _offline_deposits(session, customer):
    """The customer's deposits by transfer or USSD in this session, the latest
    first (none before the session has a plan)."""
    if session.plan_id is None:
        return DepositAttempt.objects.none()
    return DepositAttempt.objects.filter(
        plan_id=session.plan_id, customer=customer, channel__in=PayChannel.OFFLINE
    ).order_by("-number")


def offline_deposit_waiting(session, customer) -> DepositAttempt | None:
    """The deposit by transfer or USSD of this session the customer has still
    to pay (or the processor has still to confirm), if any."""
    return (
        _offline_deposits(session, customer)
        .filter(status=DepositAttempt.Status.PROCESSING)
        .first()
    )


def offline_deposit_latest(session, customer) -> DepositAttempt | None:
    """The customer's last deposit by transfer or USSD in this session."""
    return _offline_deposits(session, customer).first()
