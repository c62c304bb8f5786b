"""Creation ops."""
OPS = []
CALLS = []
