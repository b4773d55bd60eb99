"""Payouts: a merchant's available balance sent to their bank account, and the
payout bank account itself."""
