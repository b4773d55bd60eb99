"""`{% load money %}`: amounts in kobo shown to people (`config.money`)."""

from django import template

from config import money

register = template.Library()
register.filter("naira", money.naira)
