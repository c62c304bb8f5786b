"""The one-way layering of DESIGN.md, checked on the source: a module never imports a higher layer.

backend/buffer_cache/dtype/seed -> context -> tensor -> parameter/initializer/autograd -> transforms -> ops
-> nn -> (serialization, memory, graph) -> display.  The runtime may reach the display layer only
lazily, from inside a repr method (``_repr_mimebundle_``), so ``import cellkit`` never loads it; and
the memory profiler does not import nn at all (Cells and optimizers announce themselves to it).
"""
import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "cellkit"

RANKS = [  # (module prefix, layer); the longest matching prefix decides
    ("cellkit.backend", 0), ("cellkit.buffer_cache", 0), ("cellkit.dtype", 0), ("cellkit.seed", 0),
    ("cellkit.jit_config", 0), ("cellkit.hook_handles", 0), ("cellkit.observers", 0), ("cellkit.batching", 0),
    ("cellkit.context_params", 0),
    ("cellkit.context", 1), ("cellkit.ms_context", 1),
    ("cellkit.tensor", 2),
    ("cellkit.parameter", 3), ("cellkit.common", 3), ("cellkit.autograd", 3),
    ("cellkit.transforms", 4), ("cellkit.recompute", 4), ("cellkit.offload", 4), ("cellkit.jacobians", 4), ("cellkit.tape_gate", 4),
    ("cellkit.ops", 5), ("cellkit.vmap", 5),
    ("cellkit.nn", 6), ("cellkit.metrics", 6),  # metrics: NumPy over Tensors; nn re-exports them as MindSpore does
    ("cellkit.serialization", 7), ("cellkit.memory", 7), ("cellkit.graph", 7), ("cellkit.train", 7), ("cellkit.amp", 7),
    ("cellkit.display", 8),
    ("cellkit.demo", 9), ("cellkit", 9),
]


def rank(module):
    best = None
    for prefix, layer in RANKS:
        if module == prefix or module.startswith(prefix + "."):
            if best is None or len(prefix) > len(best[0]):
                best = (prefix, layer)
    return best[1]


def module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _enclosing_functions(tree):
    """id(node) -> the name of the innermost function the node sits in (absent at module level)."""
    owner = {}

    def visit(node, function):
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
            if function is not None:
                owner[id(child)] = function
            visit(child, inner)

    visit(tree, None)
    return owner


def imports(path, with_function=False):
    """(imported module, is top-level) for every cellkit import in the file (and the enclosing function)."""
    tree = ast.parse(path.read_text())
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    top_level = {id(node) for node in tree.body}
    functions = _enclosing_functions(tree)
    found = []
    for node in ast.walk(tree):
        where = functions.get(id(node))
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.startswith("cellkit"):
                targets = [target] if node.module else [f"{target}.{a.name}" for a in node.names]
                found += [(t, id(node) in top_level, where) for t in targets]
        elif isinstance(node, ast.Import):
            found += [(a.name, id(node) in top_level, where) for a in node.names if a.name.startswith("cellkit")]
    return found if with_function else [(t, top) for t, top, _ in found]


SOURCES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: module_name(p))
def test_layering_module_imports_only_lower_layers(path):
    name = module_name(path)
    for target, top_level in imports(path):
        if target.startswith("cellkit.display") and not top_level and rank(name) < rank("cellkit.display"):
            continue  # lazy display import inside a function: allowed
        assert rank(target) <= rank(name), f"{name} (layer {rank(name)}) imports {target} (layer {rank(target)})"


def _is_repr_method(function):
    return function in ("__repr__", "__str__") or (function or "").startswith("_repr_")


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: module_name(p))
def test_layering_runtime_reaches_displays_only_from_repr_methods(path):
    """Below the display layer, the one way to a display is a repr method (``_repr_mimebundle_`` ...)."""
    name = module_name(path)
    if rank(name) >= rank("cellkit.display"):
        return
    for target, _, function in imports(path, with_function=True):
        if target.startswith("cellkit.display"):
            assert _is_repr_method(function), f"{name} imports {target} in {function or 'the module'}, not a repr method"


def test_layering_memory_does_not_import_nn():
    """The memory profiler learns about Cells and optimizers through the observer protocol, not their classes."""
    path = PACKAGE / "memory.py"
    assert not [t for t, _ in imports(path) if t.startswith("cellkit.nn")]


def test_layering_import_cellkit_does_not_load_display_or_cupy():
    import subprocess
    import sys

    code = "import sys, cellkit; print(any(m.startswith('cellkit.display') for m in sys.modules), 'cupy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False"]
