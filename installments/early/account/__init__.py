"""The customer's early payments from /account/ (mounted by
installments/account/urls.py)."""
