"""Tensor printing exactly as torch prints (torch/_tensor_str.py): tensor(7.), tensor([0.5000, 2.0000],
requires_grad=True), with torch's summarization, line wrapping and print options."""
import math

import numpy as np

from . import dtypes, tape

# torch's profiles for set_printoptions; "default" is also where the options start.
_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}
_options = dict(_PROFILES["default"], sci_mode=None)

_PREFIX = "tensor("


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None):
    """Set the options for printing tensors, as torch.set_printoptions.

    precision: digits after the point (4); threshold: tensors with more elements than this are
    summarized (1000); edgeitems: items shown at each end of every dimension when summarized (3);
    linewidth: characters per line before a row wraps (80); profile: "default", "short" or "full"
    sets all four, then the other arguments override; sci_mode: True or False forces scientific
    notation on or off, None (also the value when omitted, as in torch) lets the values choose.
    """
    if profile is not None:
        _options.update(_PROFILES.get(profile, {}))    # torch ignores an unknown profile
    for key, value in (("precision", precision), ("threshold", threshold),
                       ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            _options[key] = value
    _options["sci_mode"] = sci_mode


def _float_strings(values):
    """The items of a float array as text, and the width to pad them to.

    As torch's _Formatter: the nonzero finite values alone choose the notation (integral "7.",
    fixed "0.5000", or scientific "1.0000e-05" when they span more than 1000x, pass 1e8 or go
    below 1e-4) and the width, so a nan, an inf or a zero never widens the column."""
    nonzero_finite = np.isfinite(values) & (values != 0)
    shown = values[nonzero_finite]
    if shown.size == 0:       # nothing to decide from: integral notation, even under sci_mode
        integral, scientific = True, False
    else:
        magnitudes = np.abs(shown)
        integral = bool(np.all(shown == np.ceil(shown)))
        scientific = _options["sci_mode"]
        if scientific is None:
            scientific = bool(magnitudes.max() / magnitudes.min() > 1000.0
                              or magnitudes.max() > 1.0e8 or magnitudes.min() < 1.0e-4)
    precision = _options["precision"]
    if scientific:
        spec = f".{precision}e"
    elif integral:
        spec = ".0f"
    else:
        spec = f".{precision}f"
    strings = [format(v, spec) for v in values.tolist()]
    if integral and not scientific:      # "7." says the tensor holds floats; "nan", "inf" stay
        strings = [s + "." if finite else s
                   for s, finite in zip(strings, np.isfinite(values).tolist())]
    width = max((len(s) for s, keep in zip(strings, nonzero_finite.tolist()) if keep), default=1)
    return strings, width


def _item_strings(values):
    """The items of a flat array as text, and the width (at least 1) to right-align them to."""
    if values.dtype.kind == "f":
        return _float_strings(values.astype(np.float64))
    strings = [str(v) for v in values.tolist()]      # ints, and True / False
    return strings, max(1, max(len(s) for s in strings))


def _summary_indices(shape, edgeitems):
    """Per dimension: the indices shown when summarizing (edgeitems at each end of a dimension
    longer than 2 * edgeitems, else all), and whether that dimension was cut."""
    cut = [n > 2 * edgeitems for n in shape]
    indices = [np.r_[0:edgeitems, n - edgeitems:n] if c else np.arange(n)
               for n, c in zip(shape, cut)]
    return indices, cut


def _body(array, indent):
    """The bracketed items of a nonempty array, as torch lays them out after a prefix of
    `indent` characters."""
    edgeitems = _options["edgeitems"]
    summarize = array.size > _options["threshold"]
    if summarize and array.ndim > 0 and not edgeitems:     # nothing shown: the size suffix says it
        return "[...]"
    cut = [False] * array.ndim
    if summarize and array.ndim > 0:
        # Only the items shown are formatted, and only they choose the notation and width: a
        # print of a huge tensor costs what printing its corners costs.
        indices, cut = _summary_indices(array.shape, edgeitems)
        array = array[np.ix_(*indices)]
    strings, width = _item_strings(array.ravel())
    cells = [s.rjust(width) for s in strings]
    if array.ndim == 0:
        return cells[0]
    cells = np.array(cells, dtype=object).reshape(array.shape)
    linewidth = _options["linewidth"]

    def rows(block, depth):
        if block.ndim == 1:
            items = block.tolist()
            if cut[depth]:      # the marker counts as an item when the row wraps, as in torch
                items.insert(edgeitems, " ...")
            # torch wraps a row at as many items (with their ", ") as fit after the indent
            per_line = max(1, math.floor((linewidth - indent - depth) / (width + 2)))
            lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
            return "[" + (",\n" + " " * (indent + depth + 1)).join(lines) + "]"
        parts = [rows(sub, depth + 1) for sub in block]
        if cut[depth]:
            parts.insert(edgeitems, "...")
        # blank lines between blocks grow with the rank: one between matrices of a 3-d tensor
        return "[" + ("," + "\n" * (block.ndim - 1) + " " * (indent + depth + 1)).join(parts) + "]"

    return rows(cells, 0)


def _add_suffixes(text, suffixes, indent):
    """Append ", suffix" items, each on a new line (indented) when it would pass the line width,
    measuring the last line as torch does (two characters longer than it is).

    A suffix is measured as torch spells it ("dtype=torch.int32", two characters shorter than
    "dtype=numgrad.int32"), so the lines break where torch's do and a repr is torch's with only
    the module name changed, though such a line may pass the width by those two characters."""
    linewidth = _options["linewidth"]
    used = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        length = len(suffix.replace("numgrad.", "torch."))
        if used + length + 2 > linewidth:
            text += ",\n" + " " * indent + suffix
            used = indent + length
        else:
            text += ", " + suffix
            used += length + 2
    return text + ")"


def tensor_repr(t):
    array = t._data
    suffixes = []
    if type(array) is not np.ndarray:       # a device array: print a host copy, and the device
        array = array.copy_to_host()
        suffixes.append(f"device='{t.device}'")
    if array.size == 0:
        body = "[]"
        if array.ndim != 1:
            suffixes.append(f"size={tuple(array.shape)}")
        # nothing in an empty tensor tells int64 or bool from the default dtype: torch names it
        if array.dtype != dtypes.get_default_dtype():
            suffixes.append("dtype=" + dtypes.name(array.dtype))
    else:
        if not _options["edgeitems"]:       # "[...]" alone would not tell the shape
            suffixes.append(f"size={tuple(array.shape)}")
        if array.dtype not in (dtypes.get_default_dtype(), dtypes.int64, dtypes.bool_):
            suffixes.append("dtype=" + dtypes.name(array.dtype))
        body = _body(array, len(_PREFIX))
    if t._node >= 0:
        suffixes.append(f"grad_fn=<{type(t.grad_fn).__name__}>")    # CopySlices, not name()
    elif t._node == tape.STALE_VIEW:
        suffixes.append("grad_fn=<Invalid>")      # a view torch made unusable in grad mode
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(_PREFIX + body, suffixes, len(_PREFIX))
