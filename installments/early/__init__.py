"""Paying early (DESIGN section 14): a customer pays one unpaid installment, or
everything left, now, in one charge of their chosen payment method.

Claimed like the engine's attempts (`claims.py`: the plan's lock, the
installments' row locks, `processing`), charged outside any transaction
(`services.py`), settled in a durable transaction (`outcomes.py`). An answer lost
to a crash or a timeout is settled by the engine's pass
(installments/collection/early_recovery.py) or the processor's `charge.success`
(`confirmations.py`), by verifying the early payment's own reference.
"""
