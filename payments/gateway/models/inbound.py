"""Processor callbacks (endpoints 24 and 25): the raw request, then what was done."""

from django.db import models


class InboundRequest(models.Model):
    """A processor callback. A signed one is stored exactly as received, before
    it is processed, so that nothing the processor sends is ever lost; the
    outcome (processed, or the error) is written back onto the row. A refused
    one (missing or wrong signature: anyone can send those) keeps no body, only
    its size, digest and a few headers, and only a few per minute are kept
    (payments/gateway/services/inbound.py). Rows are purged after their retention
    (`inbound_requests_purge`)."""

    class Endpoint(models.TextChoices):
        PAYMENT_GATEWAY = "payment_gateway"
        PAYSTACK = "paystack"

    endpoint = models.CharField(max_length=32, choices=Endpoint.choices)
    body = models.BinaryField()
    # Of the body as received (kept for refused requests, whose body is not).
    body_size = models.PositiveIntegerField(default=0)
    body_sha256 = models.CharField(max_length=64, blank=True)
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
