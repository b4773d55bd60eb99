"""What the customer agreed to (DESIGN section 18): the key facts shown before
the deposit, and the agreement record made when the plan activates."""
