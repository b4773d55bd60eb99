"""Reads of payouts."""

from django.db.models import QuerySet

from .models import Payout


def payouts_of(merchant) -> QuerySet[Payout]:
    return Payout.objects.filter(merchant=merchant).order_by("-created_at", "-id")
