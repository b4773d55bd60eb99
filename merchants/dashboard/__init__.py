"""The merchant dashboard pages of `merchants`: views, forms, their reads and URLs,
mounted under /dashboard/ by config/urls.py."""
