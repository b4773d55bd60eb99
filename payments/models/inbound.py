"""Processor callbacks (endpoints 24 and 25): the raw request, then what was done."""

from django.db import models


class InboundRequest(models.Model):
    """A processor callback exactly as received, stored before it is even
    verified, so that nothing a processor sends is ever lost; the outcome
    (processed, or the error) is written back onto the row."""

    class Endpoint(models.TextChoices):
        PAYMENT_GATEWAY = "payment_gateway"
        PAYSTACK = "paystack"

    endpoint = models.CharField(max_length=32, choices=Endpoint.choices)
    body = models.BinaryField()
    headers = models.JSONField(default=dict)
    signature_valid = models.BooleanField(null=True)
    event = models.CharField(max_length=100, blank=True)
    received_at = models.DateTimeField(auto_now_add=True, db_index=True)
    processed_at = models.DateTimeField(null=True, blank=True)
    # What handling did (endpoint 24 handles after the reply): "handled",
    # "duplicate", "ignored: <why>".
    outcome = models.CharField(max_length=255, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-received_at", "-id"]

    def __str__(self):
        when = self.received_at.strftime("%Y-%m-%d %H:%M:%S")
        return f"{self.endpoint} {self.event or '?'} at {when}"


class ProcessorEvent(models.Model):
    """One processor event that was handled. The unique (kind, key) makes each
    event take effect once, however often and from wherever it arrives
    (webhook redelivery, the nightly poll, a failed charge)."""

    kind = models.CharField(max_length=64)
    key = models.CharField(max_length=128)
    event = models.CharField(max_length=100, blank=True)
    source = models.CharField(max_length=32)
    inbound = models.ForeignKey(
        InboundRequest, null=True, blank=True, on_delete=models.SET_NULL
    )
    # What handling it amounted to, when worth saying (e.g. no handler claimed
    # a charge.success reference, or the verified status).
    note = models.CharField(max_length=255, blank=True)
    handled_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-handled_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "key"], name="processor_event_handled_once"
            )
        ]

    def __str__(self):
        return f"{self.kind} {self.event} ({self.source})"
