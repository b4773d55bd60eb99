"""The double-entry ledger: journal and accounts, the one fee rule, postings,
wallet reads and endpoint 9, and the invariants `check_ledger` verifies."""
