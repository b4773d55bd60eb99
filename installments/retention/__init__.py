"""Records retention (DESIGN 18, docs/privacy.md once written, docs/operations.md
"Records retention"): a plan's records stay for the financial-records period
(`RECORDS_RETENTION_YEARS`) after the plan ended and are then deleted by the
daily `installments-purge-records` job (or `python manage.py purge_records`).

`steps.py` lists what goes, child rows first; `selectors.py` says which plans
and customers are due; `services.py` deletes them in bounded batches.
"""
