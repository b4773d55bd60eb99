"""Refunds of payment plans (DESIGN section 14): the allocation of a refund over
a plan's unpaid installments and collections, the processor refunds it asks
for after its commit, and their settlement. Its models are
listed in installments/models.py, where Django looks for them."""
