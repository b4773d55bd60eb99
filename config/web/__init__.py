"""Web plumbing for the HTML pages: session sign-in of accounts that are not
Django users, security headers, form glue, pagers; and the API reference's two
pages. It may import `config.api` (a page validates with the API's serializer and
signs in through its guard); `config.api` imports nothing from here."""
