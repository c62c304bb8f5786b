"""TEMPORARY minimal Parameter -- to be replaced wholesale by the Parameter work."""
from .tensor import Tensor


class Parameter(Tensor):
    def __init__(self, default_input, name=None, requires_grad=True, layerwise_parallel=False, parallel_optimizer=True):
        Tensor.__init__(self, default_input)
        self.name = name
        self.requires_grad = requires_grad


class ParameterTuple(tuple):
    pass
