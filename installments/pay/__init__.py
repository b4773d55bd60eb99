"""The public pay page of a pay link, `/pay/<token>` (DESIGN section 17): what
the plan owes, without signing in, and the choice of what to pay and how; an
expired, revoked or unknown link's page with "send me a new link". Above the
features it pays through (early payments), below the customer's account."""
