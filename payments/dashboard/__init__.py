"""The merchant dashboard pages of payments: the wallet (balances, collections
chart, transactions, payouts) and the payout bank account."""
