"""Tasks that run on deployed nodes, and the runners that run them."""
