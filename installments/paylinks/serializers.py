"""HTTP out for pay links: the URL, shown once, and until when it opens."""

from config.api.formats import iso_utc


def pay_link_output(link, url: str) -> dict:
    return {
        "url": url,
        "expires_at": iso_utc(link.expires_at),
        "livemode": link.plan.merchant.livemode,
    }
