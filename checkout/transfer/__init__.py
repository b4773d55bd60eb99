"""The hosted checkout's page of a deposit paid by bank transfer or USSD."""
