"""Customers (shoppers): the account, its API and customer JWT, and the session
sign-in and registration shared by the hosted checkout and `/account/`."""
