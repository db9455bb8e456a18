"""torch's *_copy functions: each view op's result as a tensor of its own (a clone of the view),
with the view's gradient."""
from .. import ops
from .shape import clone


def _copy_of(view_op):
    def copy(input, *args, **kwargs):
        result = view_op(input, *args, **kwargs)
        if isinstance(result, (tuple, list)):
            return tuple(clone(piece) for piece in result)
        return clone(result)
    return copy


def _slice(input, dim=0, start=None, end=None, step=1):
    return input[(slice(None),) * (dim % input.ndim) + (slice(start, end, step),)]


# the view ops, by the name of their copy; looked up when called, as ops fills in its names
# after this module is imported
_VIEWS = {
    "alias_copy": lambda input: input[...],
    "as_strided_copy": lambda *a, **k: ops.as_strided(*a, **k),
    "detach_copy": lambda input: input.detach(),
    "diagonal_copy": lambda *a, **k: ops.diagonal(*a, **k),
    "expand_copy": lambda input, size, **k: ops.expand(input, size),
    "narrow_copy": lambda *a: ops.narrow(*a),
    "permute_copy": lambda input, dims: ops.permute(input, dims),
    "select_copy": lambda *a: ops.select(*a),
    "slice_copy": _slice,
    "split_copy": lambda *a: ops.split(*a),
    "split_with_sizes_copy": lambda *a: ops.split_with_sizes(*a),
    "squeeze_copy": lambda *a: ops.squeeze(*a),
    "t_copy": lambda input: ops.t(input),
    "transpose_copy": lambda *a: ops.transpose(*a),
    "unbind_copy": lambda *a: ops.unbind(*a),
    "unfold_copy": lambda input, dimension, size, step: input.unfold(dimension, size, step),
    "unsqueeze_copy": lambda *a: ops.unsqueeze(*a),
    "view_copy": lambda input, *shape: input.view(*shape),
}
globals().update({name: _copy_of(view) for name, view in _VIEWS.items()})

PUBLIC = tuple(_VIEWS)
METHODS = ("narrow_copy",)
INPLACE = {}
