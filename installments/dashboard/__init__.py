"""The merchant dashboard pages of `installments`: views, forms, their reads and URLs,
mounted under /dashboard/ by config/urls.py."""
