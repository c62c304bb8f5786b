"""Learning rates of ``mindspore.nn`` as MindSpore 2.10 computes them (PyNative, CPU).

The list functions (``piecewise_constant_lr``, ``exponential_decay_lr`` ...) return Python lists
of floats: a case returns the list.  The ``LearningRateSchedule`` Cells are called with an Int32
``global_step`` of shape ``(1,)`` (as an optimizer calls them) and of shape ``()``, at steps on
both sides of every boundary.  Bad arguments are cases that must raise.

``NaturalExpDecayLR`` is compared with its documented formula ``lr * e^(-decay_rate * step /
decay_steps)`` (``mindspore_wrong``): MindSpore 2.10 leaves out the division by ``decay_steps``.
"""
from . import CaseList

CASES = CaseList()
case = CASES.case

STEPS = [0, 1, 2, 3, 4, 5, 7, 8, 10, 13]


def _named(fn, name):
    fn.__name__ = fn.__qualname__ = name
    return fn


def _function_case(name, call, **hints):
    def run(ms, ops, nn, np):
        return call(nn)
    case(_named(run, name), **hints)


# --------------------------------------------------------------------------- list functions
_function_case("piecewise_constant", lambda nn: nn.piecewise_constant_lr([2, 5, 10], [0.1, 0.05, 0.01]))
_function_case("piecewise_constant_tuple_equal", lambda nn: nn.piecewise_constant_lr((1, 1, 3), (0.5, 0.2, 0.1)))
_function_case("piecewise_constant_length", lambda nn: nn.piecewise_constant_lr([2, 5], [0.1]))
_function_case("piecewise_constant_decreasing", lambda nn: nn.piecewise_constant_lr([5, 2], [0.1, 0.2]))
_function_case("piecewise_constant_zero", lambda nn: nn.piecewise_constant_lr([0, 2], [0.1, 0.2]))
_function_case("piecewise_constant_int_rate", lambda nn: nn.piecewise_constant_lr([1, 2], [1, 0.2]))
_function_case("piecewise_constant_float_milestone", lambda nn: nn.piecewise_constant_lr([1.0, 2], [0.1, 0.2]))
_function_case("piecewise_constant_not_list", lambda nn: nn.piecewise_constant_lr(3, [0.1]))

for _stair in (False, True):
    _suffix = "_stair" if _stair else ""
    _function_case(f"exponential_decay{_suffix}",
                   lambda nn, s=_stair: nn.exponential_decay_lr(0.1, 0.9, 10, 2, 3, s))
    _function_case(f"natural_exp_decay{_suffix}",
                   lambda nn, s=_stair: nn.natural_exp_decay_lr(0.1, 0.5, 10, 2, 3, s))
    _function_case(f"inverse_decay{_suffix}",
                   lambda nn, s=_stair: nn.inverse_decay_lr(0.1, 0.5, 10, 2, 3, s))

_function_case("exponential_decay_int_lr", lambda nn: nn.exponential_decay_lr(1, 0.9, 4, 1, 1))
_function_case("exponential_decay_zero_rate", lambda nn: nn.exponential_decay_lr(0.1, 0.0, 4, 1, 1))
_function_case("exponential_decay_zero_steps", lambda nn: nn.exponential_decay_lr(0.1, 0.9, 0, 1, 1))
_function_case("exponential_decay_float_steps", lambda nn: nn.exponential_decay_lr(0.1, 0.9, 4.0, 1, 1))
_function_case("exponential_decay_bool_epoch", lambda nn: nn.exponential_decay_lr(0.1, 0.9, 4, 1, True))
_function_case("natural_exp_decay_stair_int", lambda nn: nn.natural_exp_decay_lr(0.1, 0.5, 4, 1, 1, 1))
_function_case("inverse_decay_negative_lr", lambda nn: nn.inverse_decay_lr(-0.1, 0.5, 4, 1, 1))
_function_case("inverse_decay_nan_rate", lambda nn: nn.inverse_decay_lr(0.1, float("nan"), 4, 1, 1))

_function_case("cosine_decay", lambda nn: nn.cosine_decay_lr(0.01, 0.1, 10, 2, 3))
_function_case("cosine_decay_zero_min", lambda nn: nn.cosine_decay_lr(0.0, 0.1, 6, 1, 4))
_function_case("cosine_decay_min_ge_max", lambda nn: nn.cosine_decay_lr(0.1, 0.1, 6, 1, 4))
_function_case("cosine_decay_int_min", lambda nn: nn.cosine_decay_lr(0, 0.1, 6, 1, 4))
_function_case("cosine_decay_negative_min", lambda nn: nn.cosine_decay_lr(-0.1, 0.1, 6, 1, 4))

_function_case("polynomial_decay", lambda nn: nn.polynomial_decay_lr(0.1, 0.01, 10, 2, 3, 2.0))
_function_case("polynomial_decay_update", lambda nn: nn.polynomial_decay_lr(0.1, 0.01, 12, 1, 4, 0.5, True))
_function_case("polynomial_decay_zero_end", lambda nn: nn.polynomial_decay_lr(0.1, 0.0, 5, 1, 2, 1.0))
_function_case("polynomial_decay_int_end", lambda nn: nn.polynomial_decay_lr(0.1, 0, 5, 1, 2, 1.0))
_function_case("polynomial_decay_zero_power", lambda nn: nn.polynomial_decay_lr(0.1, 0.01, 5, 1, 2, 0.0))
_function_case("polynomial_decay_update_int", lambda nn: nn.polynomial_decay_lr(0.1, 0.01, 5, 1, 2, 1.0, 1))

_function_case("warmup", lambda nn: nn.warmup_lr(0.1, 10, 2, 3))
_function_case("warmup_zero_lr", lambda nn: nn.warmup_lr(0.0, 3, 1, 2))
_function_case("warmup_int_lr", lambda nn: nn.warmup_lr(1, 3, 1, 2))
_function_case("warmup_zero_epoch", lambda nn: nn.warmup_lr(0.1, 3, 1, 0))


# ----------------------------------------------------------------------- schedule Cells
def _evaluate(ms, np, schedule):
    """The schedule at STEPS, with a (1,) step (as optimizers pass it) and with a 0-d step."""
    column = [schedule(ms.Tensor(np.array([s], np.int32))) for s in STEPS]
    scalars = [schedule(ms.Tensor(np.array(s, np.int32))) for s in STEPS[:3]]
    return column, scalars


def _schedule_case(name, make, **hints):
    def run(ms, ops, nn, np):
        return _evaluate(ms, np, make(nn))
    case(_named(run, name), **hints)


def _natural_expected(learning_rate, decay_rate, decay_steps, is_stair):
    def expected(np):
        def value(step, shape):
            p = step / decay_steps
            p = np.floor(p) if is_stair else p
            return np.array(learning_rate * np.exp(-decay_rate * p), np.float32).reshape(shape)
        return [value(s, (1,)) for s in STEPS], [value(s, ()) for s in STEPS[:3]]
    return expected


_NATURAL = ("MindSpore 2.10 computes e^(-decay_rate * step) (and floor(step / decay_steps) * decay_steps with "
            "is_stair): decay_steps times its documented exponent step / decay_steps")

for _stair in (False, True):
    _suffix = "_stair" if _stair else ""
    _schedule_case(f"exponential_decay_lr_cell{_suffix}", lambda nn, s=_stair: nn.ExponentialDecayLR(0.1, 0.9, 4, s))
    _schedule_case(f"inverse_decay_lr_cell{_suffix}", lambda nn, s=_stair: nn.InverseDecayLR(0.1, 0.5, 4, s))
    _schedule_case(f"natural_exp_decay_lr_cell{_suffix}", lambda nn, s=_stair: nn.NaturalExpDecayLR(0.1, 0.9, 4, s),
                   mindspore_wrong=True, expected=_natural_expected(0.1, 0.9, 4, _stair), note=_NATURAL)
_schedule_case("cosine_decay_lr_cell", lambda nn: nn.CosineDecayLR(0.01, 0.1, 10))
_schedule_case("cosine_decay_lr_cell_zero_min", lambda nn: nn.CosineDecayLR(0.0, 0.05, 3))
_schedule_case("polynomial_decay_lr_cell", lambda nn: nn.PolynomialDecayLR(0.1, 0.01, 4, 2.0))
_schedule_case("polynomial_decay_lr_cell_update", lambda nn: nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5, True))
_schedule_case("warmup_lr_cell", lambda nn: nn.WarmUpLR(0.1, 4))
_schedule_case("warmup_lr_cell_zero", lambda nn: nn.WarmUpLR(0.0, 2))


@case
def schedule_cell_attributes(ms, ops, nn, np):
    exp = nn.ExponentialDecayLR(0.1, 0.9, 4, True)
    poly = nn.PolynomialDecayLR(0.1, 0.01, 4, 2.0)
    cosine = nn.CosineDecayLR(0.01, 0.1, 10)
    warm = nn.WarmUpLR(0.1, 4)
    return (exp.learning_rate, exp.decay_rate, exp.decay_steps, exp.is_stair, poly.start_learning_rate,
            poly.end_learning_rate, poly.diff_learning_rate, poly.power, cosine.min_lr, cosine.max_lr, cosine.delta,
            warm.warmup_steps, isinstance(exp, nn.learning_rate_schedule.LearningRateSchedule), list(exp.parameters_dict()))


@case
def schedule_subclass(ms, ops, nn, np):
    class Halving(nn.learning_rate_schedule.LearningRateSchedule):
        def construct(self, global_step):
            return 0.1 * ops.pow(0.5, ops.cast(global_step, ms.float32))

    return _evaluate(ms, np, Halving())


def _raise_schedule(name, make):
    def run(ms, ops, nn, np):
        return make(nn)
    case(_named(run, name))


_raise_schedule("exponential_decay_lr_cell_int_lr", lambda nn: nn.ExponentialDecayLR(1, 0.9, 4))
_raise_schedule("exponential_decay_lr_cell_zero_steps", lambda nn: nn.ExponentialDecayLR(0.1, 0.9, 0))
_raise_schedule("exponential_decay_lr_cell_bool_steps", lambda nn: nn.ExponentialDecayLR(0.1, 0.9, True))
_raise_schedule("exponential_decay_lr_cell_stair_int", lambda nn: nn.ExponentialDecayLR(0.1, 0.9, 4, 1))
_raise_schedule("natural_exp_decay_lr_cell_negative_rate", lambda nn: nn.NaturalExpDecayLR(0.1, -0.9, 4))
_raise_schedule("inverse_decay_lr_cell_float_steps", lambda nn: nn.InverseDecayLR(0.1, 0.9, 4.0))
_raise_schedule("cosine_decay_lr_cell_int_min", lambda nn: nn.CosineDecayLR(0, 0.1, 4))
_raise_schedule("cosine_decay_lr_cell_min_ge_max", lambda nn: nn.CosineDecayLR(0.2, 0.1, 4))
_raise_schedule("cosine_decay_lr_cell_zero_max", lambda nn: nn.CosineDecayLR(0.0, 0.0, 4))
_raise_schedule("polynomial_decay_lr_cell_int_end", lambda nn: nn.PolynomialDecayLR(0.1, 0, 4, 1.0))
_raise_schedule("polynomial_decay_lr_cell_zero_power", lambda nn: nn.PolynomialDecayLR(0.1, 0.01, 4, 0.0))
_raise_schedule("polynomial_decay_lr_cell_int_lr", lambda nn: nn.PolynomialDecayLR(1, 0.01, 4, 1.0))
_raise_schedule("polynomial_decay_lr_cell_update_int", lambda nn: nn.PolynomialDecayLR(0.1, 0.01, 4, 1.0, 1))
_raise_schedule("warmup_lr_cell_int_lr", lambda nn: nn.WarmUpLR(1, 4))
_raise_schedule("warmup_lr_cell_negative_lr", lambda nn: nn.WarmUpLR(-0.1, 4))
_raise_schedule("warmup_lr_cell_zero_steps", lambda nn: nn.WarmUpLR(0.1, 0))
