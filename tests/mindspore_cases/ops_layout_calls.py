"""MindSpore cases made from the ``CALLS`` of the layout, indexing and creation catalogue families.

``CALLS`` (``tests/op_catalogue/_calls.py``) are entries reached through something other than
``ops.<name>(...)``: Primitives with no functional twin, Tensor-only methods, and checks that an
op changes (or keeps) its input.  The cases are made exactly as ``catalogue_cases`` makes the
``OPS`` cases -- ``<name>__<label>`` returns the output, or ``(output, gradients)`` of the probe
sum -- but call ``info.call(ms, ops, *args, **kwargs)``.
"""
from . import CaseList, _catalogue, _named, probe_sum, to_tensors

FAMILIES = ("indexing", "layout", "creation")  # indexing first: its first case must run first (see there)


def entries():
    """Every ``CallInfo`` of the families, in order."""
    package = _catalogue()
    return [info for family in FAMILIES for info in getattr(package.load_family(family), "CALLS", ())]


def _sample_case(info, index):
    sample = info.samples[index]

    def case(ms, ops, nn, np):
        args = to_tensors(info.host_args(index), ms, np)
        out = info.run(ms, ops, *args, **sample.kwargs)
        if not sample.grad or info.mindspore_grad_wrong:  # MindSpore's gradient is wrong: the output only
            return out

        def weighted(*diff_args):
            call_args = list(args)
            for position, value in zip(sample.grad, diff_args):
                call_args[position] = value
            return probe_sum(info.run(ms, ops, *call_args, **sample.kwargs), ms, np, info.seed(index) + 1000)

        grads = ms.grad(weighted, grad_position=tuple(range(len(sample.grad))))(*[args[p] for p in sample.grad])
        return out, grads

    return _named(case, f"{info.name}__{info.sample_label(index)}")


def _bad_case(info, bad):
    def case(ms, ops, nn, np):
        args = to_tensors(_catalogue().materialize(bad.args, 7), ms, np)
        return info.run(ms, ops, *args, **bad.kwargs)

    return _named(case, f"{info.name}__bad_{bad.label}")


def _reference_for(info, index):
    def expected(np):
        return info.ref(*info.host_args(index), **info.samples[index].kwargs)
    return expected


def call_cases():
    cases = CaseList()
    for info in entries():
        for index, sample in enumerate(info.samples):
            label = info.sample_label(index)
            wrong = label in info.mindspore_wrong
            if wrong and ((sample.grad and not info.mindspore_grad_wrong) or info.ref is None):
                raise ValueError(f"{info.name} sample {label}: mindspore_wrong needs a reference and no gradient")
            cases.case(_sample_case(info, index), rtol=info.rtol, atol=info.atol, mindspore_wrong=wrong,
                       expected=_reference_for(info, index) if wrong else None,
                       note=info.mindspore_wrong.get(label, ""))
        for bad in info.bad:
            cases.case(_bad_case(info, bad))
    return cases


CASES = call_cases()
