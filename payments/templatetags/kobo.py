"""`{% load kobo %}`: amounts in kobo shown to people (`config.money`), for the
pages of `payments` (which cannot load `installments`' `money` library: payments
sits below installments)."""

from django import template

from config import money

register = template.Library()
register.filter("naira", money.naira)
