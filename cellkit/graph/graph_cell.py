"""``nn.GraphCell``: a Cell that runs a graph read by ``ms.load`` (cellkit's export format, not MindIR).

>>> import os, tempfile
>>> import cellkit as ms
>>> from cellkit import nn
>>> path = os.path.join(tempfile.mkdtemp(), "relu.mindir")
>>> ms.export(nn.ReLU(), ms.Tensor([[-1.0, 2.0]]), file_name=path, file_format="MINDIR")
>>> nn.GraphCell(ms.load(path))(ms.Tensor([[3.0, -4.0]]))
Tensor(shape=[1, 2], dtype=Float32, value=
[[ 3.00000000e+00,  0.00000000e+00]])
"""
from __future__ import annotations

from ..nn.cell import Cell

__all__ = ["GraphCell"]


class GraphCell(Cell):
    """Runs a loaded graph; its Parameters (the values saved by ``export``) are this Cell's Parameters.

    Parameters
    ----------
    graph : cellkit.graph.Graph
        What ``ms.load`` returned.
    params_init : dict, optional
        ``{name: Tensor}``: new values for Parameters of the graph.
    obf_random_seed : int, optional
        MindSpore's obfuscation seed: cellkit obfuscates nothing, so it must be None.

    Raises
    ------
    TypeError
        ``graph`` is not a graph loaded by ``ms.load``; ``params_init`` not a dict.
    ValueError
        ``params_init`` names a Parameter the graph does not have, or gives a value of another shape;
        ``obf_random_seed`` given.
    """

    def __init__(self, graph, params_init=None, obf_random_seed=None):
        super().__init__()
        from .executor import build_plan
        from .ir import Graph
        from ..tensor import Tensor

        if not isinstance(graph, Graph) or not getattr(graph, "loaded", False):
            raise TypeError("For 'GraphCell', the argument 'graph' must be a graph loaded by ms.load (cellkit's "
                            f"export format), but got type {type(graph)}.")
        if params_init is not None and not isinstance(params_init, dict):
            raise TypeError(f"For 'GraphCell', the argument 'params_init' must be a dict, but got "
                            f"{type(params_init).__name__}")
        if obf_random_seed is not None:
            raise ValueError("For 'GraphCell', cellkit does not obfuscate graphs: 'obf_random_seed' must be None, "
                             f"but got {type(obf_random_seed).__name__} {obf_random_seed!r}")
        by_name = {s.name: s.tensor for s in graph.states}
        for name, value in (params_init or {}).items():
            if name not in by_name:
                raise ValueError(f"For 'GraphCell', 'params_init' names '{name}', which is not a Parameter of the "
                                 f"graph (it has {sorted(by_name)})")
            value = value if isinstance(value, Tensor) else Tensor(value)
            if tuple(value.shape) != tuple(by_name[name].shape):
                raise ValueError(f"For 'GraphCell', 'params_init' gives '{name}' the shape {tuple(value.shape)}, "
                                 f"but the graph's Parameter has {tuple(by_name[name].shape)}")
            by_name[name].set_data(value.astype(by_name[name].dtype))
        object.__setattr__(self, "_graph", graph)
        object.__setattr__(self, "_plan", build_plan(graph, use_kernels=False))
        for i, state in enumerate(graph.states):
            self.insert_param_to_cell(state.name.replace(".", "_") or f"param{i}", state.tensor, check_name_contain_dot=False)

    @property
    def graph(self):
        """The loaded graph."""
        return self._graph

    def construct(self, *inputs):
        return self._plan(inputs, {})
