"""What an operator watches: /healthz, /readyz, Prometheus metrics at /metrics
(docs/operations.md, "Health, readiness and metrics")."""
