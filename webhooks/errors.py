from config.api.errors import DomainError


class WebhookUrlNotAllowed(DomainError):
    code = "webhook_url_not_allowed"
    http_status = 400
    message = (
        "The webhook URL is not allowed: it must use https and must not point to a "
        "loopback, private, link-local or metadata address."
    )
