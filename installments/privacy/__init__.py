"""The customer's data (DESIGN section 18): downloading everything held about
them, and erasing it when nothing they owe or are owed is still open."""
