"""Layout ops: the family is declared in the op catalogue (``tests/op_catalogue/layout.py``)."""
OPS = []
CALLS = []
