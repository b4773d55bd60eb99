"""Web plumbing for the HTML pages: session sign-in of accounts that are not
Django users, security headers, form glue."""
