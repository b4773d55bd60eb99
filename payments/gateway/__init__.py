"""The payment processor: its interface and adapters (Paystack, sandbox), the
sandbox's pages, charges and refunds at the processor, and the inbound
processor endpoints 24 and 25."""
