"""A customer's payment methods: saving cards and bank mandates, defaults,
deletion, revocations, and charging a saved method."""
