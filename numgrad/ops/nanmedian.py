"""nanmedian: the lower median of the values that are not NaN (NaN where all are), with
median's gradients (statistics.py): shared evenly by the elements equal to it without dim, to
the element at the index with dim."""
import numpy as np

from .dim_argument import int_dim
from .index import take
from .named import named
from .select import _return_type, amax, return_types
from .statistics import median, median_along
from .untracked import to_host

return_types.nanmedian = _return_type("nanmedian")


def _nanmedian_index(values, axis):
    """Along axis: the index of the lower median of the non-NaN values (argsort puts NaNs last),
    or of the first NaN where all are NaN."""
    present = ~np.isnan(values) if values.dtype.kind == "f" else np.ones(values.shape, np.bool_)
    k = np.maximum(present.sum(axis=axis, keepdims=True) - 1, 0) // 2
    order = np.argsort(values, axis=axis, kind="stable")
    return np.take_along_axis(order, k, axis=axis).astype(np.int64)


@int_dim()
def nanmedian(input, dim=None, keepdim=False):
    """nanmedian(x): the lower median of the non-NaN elements. nanmedian(x, dim): (values,
    indices) along dim."""
    data = to_host(input._data)
    if data.dtype == np.bool_:            # torch's nanmedian is its median kernel
        kernel = "median_cpu" if dim is None else "median_out"
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    if dim is None:
        if data.size == 0 and data.dtype.kind != "f":
            return median(input)        # the dtype's lowest value, as torch's median kernel
        return named(_nanmedian_of_all(input, data), "NanmedianBackward0", inputs=(input,))
    return median_along(input, data, dim, keepdim, _nanmedian_index, return_types.nanmedian)


def _nanmedian_of_all(input, data):
    flat = data.reshape(-1)
    if flat.size == 0:
        return take(input, np.zeros(0, np.int64)).mean()       # NaN, with a gradient of nothing
    value = flat[int(_nanmedian_index(flat, 0)[0])]
    if value != value:
        # all NaN: the mean of the NaNs is NaN, and shares the gradient evenly, as torch's
        return take(input, np.flatnonzero(np.isnan(flat))).mean()
    return amax(take(input, np.flatnonzero(flat == value)))


PUBLIC = ("nanmedian",)
METHODS = PUBLIC
INPLACE = {}
