"""forward(op, arrays, attrs): the CUDA twin of `op.forward`, for ops whose inputs live on the GPU.

One table names every op's twin, by registry name. `apply` calls this when an input is a device
array; inputs that are host arrays are constants the op code made (a Python scalar as a 0-d array,
index positions, a mask): 0-d ones are fine for elementwise ops, as torch's CPU scalars are, and
ops name the inputs that are host index arrays by position. Any other host array is a CPU tensor
mixed with CUDA ones: torch's error.
"""
import numpy as np

from . import elementwise, index, linalg, nn, reduce, shape
from .array import is_device_array, to_device
from .formulas import FORWARD
from ..ops import registry

_DEVICES_ERROR = ("Expected all tensors to be on the same device, but found at least two devices, "
                  "cuda:0 and cpu!")


class Twin:
    """A CUDA forward: fn(*arrays, **attrs), and the inputs that may be host (index) arrays."""
    __slots__ = ("fn", "host_inputs")

    def __init__(self, fn, host_inputs=()):
        self.fn = fn
        self.host_inputs = host_inputs


def _elementwise(op, host_inputs=()):
    return Twin(lambda *arrays, **attrs: elementwise.forward(op, arrays, attrs), host_inputs)


def _on_host(op):
    """sort and topk (a stable sort along a dim) and batch norm's statistics have no kernel here
    yet; NumPy runs them on a copy."""
    def fn(*arrays, **attrs):
        result = op.forward(*[np.asarray(a) for a in arrays], **attrs)
        if op.n_out == 1:
            return to_device(result)
        return tuple(to_device(np.asarray(r)) for r in result)
    return Twin(fn)


def _first(x, *saved, **attrs):
    return x


def _table():
    twins = {name: _elementwise(registry.BY_NAME[name]) for name in FORWARD
             if name in registry.BY_NAME}
    for name in ("where", "masked_fill", "masked_fill_tensor"):
        twins[name] = _elementwise(registry.BY_NAME[name], host_inputs=(0,))
    plain = {
        "cast": shape.cast, "promote": shape.cast, "clone": shape.clone, "view": shape.reshape,
        "unsafe_view": shape.reshape, "reshape_alias": shape.reshape,
        "unsqueeze": shape.reshape, "squeeze": shape.reshape, "squeeze_dim": shape.reshape,
        "squeeze_dims": shape.reshape, "permute": shape.permute, "transpose": shape.permute,
        "t": shape.permute, "strided": shape.strided, "select": shape.strided,
        "as_strided": shape.strided, "diagonal": shape.strided, "diagonal_copy": shape.strided,
        "unfold": shape.strided,
        "alias": shape.strided, "t_": shape.permute, "transpose_": shape.permute,
        "squeeze_": shape.reshape, "squeeze_dim_": shape.reshape, "squeeze_dims_": shape.reshape,
        "unsqueeze_": shape.reshape,
        "strided_scatter": shape.strided_scatter, "stack": shape.stack, "cat": shape.cat,
        "flip": shape.flip, "repeat": shape.repeat, "pad": shape.pad, "expand": shape.expand,
        "split": shape.split, "split_with_sizes": shape.split, "unbind": shape.split,
        "unsafe_split": shape.split, "unsafe_split_with_sizes": shape.split,
        "sum": reduce.sum_, "sum_dim": reduce.sum_, "mean": reduce.mean,
        "mean_dim": reduce.mean, "prod": reduce.prod,
        "prod_dim": reduce.prod, "var": reduce.var, "std": reduce.std,
        "logsumexp": reduce.logsumexp, "norm": reduce.norm, "cumsum": reduce.cumsum,
        "cumprod": reduce.cumprod, "amax": reduce.amax, "amin": reduce.amin,
        "max_all": reduce.amax, "min_all": reduce.amin, "max_dim": reduce.pick,
        "min_dim": reduce.pick,
        "mm": lambda x, y, layout=0: linalg.mm(x, y), "bmm": linalg.bmm, "dot": linalg.dot, "mv": linalg.mv,
        "linear": lambda b, x, w: linalg.linear(x, w, b), "linear_no_bias": linalg.linear,
        "softmax": nn.softmax, "log_softmax": nn.log_softmax, "im2col": nn.im2col,
        "col2im": nn.col2im, "conv2d": nn.conv2d, "conv2d_no_bias": nn.conv2d,
        # a composite's named node (ops/named.py) passes its first input on
        "named_0": _first, "named_1": _first, "named_2": _first, "read_by_backward": _first,
        "linear_weight": _first, "cross_entropy_logits": _first,
    }
    twins.update({name: Twin(fn) for name, fn in plain.items()})
    twins.update({"take": Twin(index.take, (1,)), "gather": Twin(index.take, (1,)),
                  "index_select": Twin(index.take, (1,)), "put_add": Twin(index.put_add, (1,)),
                  "take_rows": Twin(index.take_rows, (1,)),
                  "index_select_rows": Twin(index.take_rows, (1,)),
                  "diag_embed": Twin(index.put_add, (1,)),
                  "scatter_add": Twin(index.scatter_add, (2,)),
                  "index_add": Twin(index.scatter_add, (2,)),
                  "cross_entropy": Twin(nn.cross_entropy, (1, 2))})
    for name in ("sort", "topk", "batch_norm_stats", "batch_norm", "layer_norm", "group_norm",
                 "avg_pool2d"):
        twins[name] = _on_host(registry.BY_NAME[name])
    return twins


TWINS = _table()


def forward(op, arrays, attrs):
    twin = TWINS.get(op.name)
    if twin is None:
        raise NotImplementedError(f"{op.name} has no CUDA forward in numgrad yet")
    scalar_ok = op.elementwise or op.name in FORWARD
    for k, a in enumerate(arrays):
        if not is_device_array(a) and k not in twin.host_inputs and (a.ndim or not scalar_ok):
            raise RuntimeError(_DEVICES_ERROR)
    return twin.fn(*arrays, **attrs) if attrs else twin.fn(*arrays)
