"""The shared core of installments, below every feature: the plan and its
installments (models, status histories), the plan rules (amounts, tiers, due
dates), the plan's events and reads, customer scores and milestones, the plan
representation of the API with the registries through which the features fill
in their parts (hooks.py), and the plans' read endpoints and CSV exports."""
