"""Rescheduling (DESIGN section 15): a customer moves one unpaid installment to a
later working day within their merchant's limits; the merchant moves any unpaid
installment. Only the due date (and so what the collection engine claims) moves,
never an amount. The model is listed in installments/models.py, where Django
looks for it."""
