"""A small online shop: carts, orders, payments and the services around them."""
