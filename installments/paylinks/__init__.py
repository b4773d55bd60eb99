"""Pay links (DESIGN section 17): a link `/pay/<token>` to one plan's pay page,
valid 7 days, revocable; its token is derived from the link's id with a server
key and stored only as a SHA-256 digest. Below notifications: every message
that carries one records its link here (`services.pay_links_for_messages`); the
public page that opens it is `installments/pay/`, above the features it pays
through."""
