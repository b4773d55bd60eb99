"""Cancelling a plan (DESIGN section 14): its merchant stops its collection
(`POST /api/v1/payment-plans/<id>/cancel`), or a refund cancels its last unpaid
installments. Nothing is refunded by a cancellation."""
