"""The merchant dashboard pages of `checkout`: views, forms, their reads and URLs,
mounted under /dashboard/ by config/urls.py."""
