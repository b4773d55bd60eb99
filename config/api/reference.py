"""What the API reference says about itself: its introduction and its tags (the
groups of operations, one per first path segment), each pointing to the guides
on the site (/docs/<guide>/).

Everything here is read by merchants in ReDoc and Swagger UI, so it names pages
of the site, never files of the repository
(tests/api_contract/test_schema_texts.py checks every text of the schema).
"""

INTRODUCTION = """\
Installment checkout for Nigerian merchants: checkout sessions and plan previews, \
payment links, payment plans, your API key, settings, wallet and payout account, \
your customers' payment methods, and signed webhooks.

Every path starts with `/api/v1`; amounts are integers in kobo (100 kobo = ₦1). \
New here? Start with the [quickstart](/docs/quickstart/).

Guides: [API basics](/docs/api/) (credentials, envelopes, rate limits), \
[errors](/docs/errors/) (every error code), [webhooks](/docs/webhooks/) (events, \
signatures, retries), [sandbox](/docs/sandbox/) (test cards, bank accounts and \
OTPs), and [all the guides](/docs/).
"""

TAGS = [
    {
        "name": "auth",
        "description": "Sign in and register: JWTs for merchants and customers. "
        "Guide: [credentials](/docs/api/#credentials).",
    },
    {
        "name": "merchant",
        "description": "Your merchant account: API keys, settings, wallet and "
        "payout account. Guides: [API basics](/docs/api/), "
        "[wallet and payouts](/docs/wallet/).",
    },
    {
        "name": "checkout",
        "description": "Checkout sessions, the plan preview and completing a "
        "checkout. Guides: [checkout sessions](/docs/checkout/), "
        "[how plans are worked out](/docs/plans/).",
    },
    {
        "name": "payment-links",
        "description": "Links that open a checkout without your server. Guide: "
        "[payment links](/docs/payment-links/).",
    },
    {
        "name": "payment-plans",
        "description": "Your customers' plans and their installments. Guides: "
        "[payment plans](/docs/payment-plans/), [auto-debit](/docs/auto-debit/).",
    },
    {
        "name": "disputes",
        "description": "Your customers' banks disputing payments (chargebacks): "
        "read them, answer with evidence by the deadline, or accept. Events: "
        "[webhooks](/docs/webhooks/).",
    },
    {
        "name": "installments",
        "description": "Your installments due in a date range, across plans, as "
        "JSON or CSV. Guide: [CSV exports](/docs/api/#csv-exports).",
    },
    {
        "name": "payment-methods",
        "description": "A customer's cards and bank mandates, with the customer's "
        "JWT. Guide: [payment methods](/docs/payment-methods/).",
    },
    {
        "name": "customers",
        "description": "The signed-in customer's own profile.",
    },
    {
        "name": "webhooks",
        "description": "Test events, replays and failed delivery attempts, and the "
        "payment processor's callbacks. Guide: [webhooks](/docs/webhooks/).",
    },
    {
        "name": "events",
        "description": "Your events of the last 30 days, each exactly as its "
        "webhook carried it: catch up after an outage, or check what was sent. "
        "Guide: [webhooks](/docs/webhooks/#events-api).",
    },
    {
        "name": "audit-log",
        "description": "Who signed in to your account and changed what, when and "
        "from where; append-only, as JSON or CSV. Guide: "
        "[audit log](/docs/audit-log/).",
    },
    {
        "name": "sandbox",
        "description": "Sandbox time travel: collect a plan's next installment "
        "now; complete or expire a pending payment; decide a dispute. Guide: "
        "[sandbox](/docs/sandbox/).",
    },
]
