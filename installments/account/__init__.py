"""The customer's pages of `installments` (`/account/`): views, their forms and URLs,
mounted under /account/ by config/urls.py."""
