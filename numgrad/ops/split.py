"""split, chunk and unbind: one node with one output per piece, as torch's SplitBackward0 and
UnbindBackward0, so an edge from a consumer names the piece by its input_nr. The unsafe_ forms are
the same pieces that torch does not track as views: their own version counters and nodes
(UnsafeSplitBackward0), so an in-place op on one piece neither bumps nor refuses the others."""
import numpy as np

from ..tensor import _wrap_dim
from .apply import apply, show_attributes
from .registry import OpDef
from .scan import line_meta


def _pieces_vjp(ctx, *grads):
    """The pieces' gradients side by side (undefined ones arrive as zeros)."""
    from .shape import cat, stack
    d, keepdim = int(ctx.ints[-2]), int(ctx.ints[-1])
    return (cat(list(grads), d) if keepdim else stack(list(grads), d),)


def _split_forward(x, dim, sizes, keepdim, outer, widths):
    bounds = np.cumsum(sizes)[:-1]
    pieces = np.split(x, bounds, axis=dim)
    return tuple(pieces if keepdim else [p.squeeze(dim) for p in pieces])


def _split_meta(dim, sizes, keepdim, outer, widths):
    # dim and keepdim go last, for the VJP
    return (outer, sum(widths), *widths, dim, int(keepdim)), ()


# n_out=None: as many outputs as pieces, counted per call
_PIECES = dict(n_out=None, kernel="split_bwd", vjp=_pieces_vjp, meta=_split_meta, view=True)
SPLIT = OpDef("split", _split_forward, node_name="SplitBackward0", **_PIECES)
SPLIT_WITH_SIZES = OpDef("split_with_sizes", _split_forward, node_name="SplitWithSizesBackward0",
                         **_PIECES)
UNBIND = OpDef("unbind", _split_forward, node_name="UnbindBackward0", **_PIECES)
_UNSAFE = dict(_PIECES, view=False)
UNSAFE_SPLIT = OpDef("unsafe_split", _split_forward, node_name="UnsafeSplitBackward0", **_UNSAFE)
UNSAFE_SPLIT_WITH_SIZES = OpDef("unsafe_split_with_sizes", _split_forward,
                                node_name="UnsafeSplitWithSizesBackward0", **_UNSAFE)


def _pieces(op, x, d, sizes, keepdim, shown):
    """The pieces of x along dim d, of the given sizes, as one node showing `shown`."""
    shape = x._data.shape
    outer, _, inner = line_meta(shape, d)
    widths = tuple(s * inner for s in sizes)
    pieces = apply(op, (x,), {"dim": d, "sizes": tuple(sizes), "keepdim": keepdim,
                              "outer": outer, "widths": widths})
    show_attributes(pieces[0], **shown)
    if op.view:
        vc = x._shared_vc()
        for p in pieces:             # views of x, as in torch
            p._vc = vc
    return pieces


def split(x, split_size_or_sections, dim=0):
    """Pieces of split_size along dim (the last may be smaller), or of the listed sizes."""
    return _split(x, split_size_or_sections, dim, SPLIT, SPLIT_WITH_SIZES)


def unsafe_split(x, split_size, dim=0):
    return _split(x, int(split_size), dim, UNSAFE_SPLIT, UNSAFE_SPLIT_WITH_SIZES)


def unsafe_split_with_sizes(x, split_sizes, dim=0):
    return _split(x, [int(s) for s in split_sizes], dim, UNSAFE_SPLIT, UNSAFE_SPLIT_WITH_SIZES)


def _split(x, split_size_or_sections, dim, by_size, by_sizes):
    nd = x._data.ndim
    if nd == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    by_step = isinstance(split_size_or_sections, (int, np.integer))
    if by_step and split_size_or_sections < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got "
                           f"split_size={split_size_or_sections}")
    d = _wrap_dim(dim, nd)
    size = x._data.shape[d]
    if by_step:
        step = int(split_size_or_sections)
        if step == 0 and size != 0:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension "
                               f"size of {size}")
        sizes = [min(step, size - s) for s in range(0, size, step)] if step else [0]
        return _pieces(by_size, x, d, sizes or [0], True,
                       {"dim": int(dim), "self_sym_sizes": x._data.shape, "split_size": step})
    sizes = [int(s) for s in split_size_or_sections]
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, "
                           f"but got split_sizes={sizes}")
    if sum(sizes) != size:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input "
                           f"tensor's size at dimension {d}), but got split_sizes={sizes}")
    return _pieces(by_sizes, x, d, sizes, True,
                   {"dim": int(dim), "self_sym_sizes": x._data.shape, "split_sizes": tuple(sizes)})


def chunk(x, chunks, dim=0):
    """At most `chunks` pieces of equal size ceil(size / chunks) along dim; along an empty dim,
    `chunks` empty pieces (torch's split_with_sizes then)."""
    return _chunk(x, chunks, dim, SPLIT, SPLIT_WITH_SIZES)


def unsafe_chunk(x, chunks, dim=0):
    return _chunk(x, chunks, dim, UNSAFE_SPLIT, UNSAFE_SPLIT_WITH_SIZES)


def _chunk(x, chunks, dim, by_size, by_sizes):
    if x._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = x._data.shape[_wrap_dim(dim, x._data.ndim)]
    if not size:
        return _split(x, [0] * chunks, dim, by_size, by_sizes)
    return _split(x, -(-size // chunks), dim, by_size, by_sizes)


def unbind(x, dim=0):
    """The slices of x along dim, without that dim."""
    d = _wrap_dim(dim, x._data.ndim)       # a 0-d x has dims -1 and 0
    if x._data.ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    if x._data.shape[d] == 0:
        return ()
    return _pieces(UNBIND, x, d, [1] * x._data.shape[d], False, {"dim": int(dim)})
