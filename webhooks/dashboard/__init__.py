"""The merchant dashboard pages of `webhooks`: views, forms, their reads and URLs,
mounted under /dashboard/ by config/urls.py."""
