"""Deposits (DESIGN section 7): the deposit attempts a checkout makes, and the
use-cases that prepare a plan at checkout and activate it when its deposit is
paid (services.py), which checkout completion calls."""
