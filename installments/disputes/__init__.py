"""Disputes and chargebacks (DESIGN section 19): the processor's dispute of one
collection, the money it holds, the merchant's answer, and the plan that stops
collecting while it is open."""
