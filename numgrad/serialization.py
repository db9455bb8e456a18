"""numgrad.save / numgrad.load: state dicts (and other nests of dicts, lists, tuples, numbers,
strings and tensors) in a NumPy .npz file, without pickle.

Note [npz layout]
Every array goes in the archive under the path of keys that leads to it ("state/0/exp_avg");
the nesting itself (containers, key types, numbers, strings, which arrays were tensors or
parameters) is a JSON document stored as the string array "__numgrad__". Loading uses
np.load(allow_pickle=False): a file can hold data only, never code.

>>> import io, numgrad as ng
>>> buffer = io.BytesIO()
>>> ng.save({"w": ng.ones(2), "step": 3}, buffer)
>>> _ = buffer.seek(0)
>>> ng.load(buffer)
{'w': tensor([1., 1.]), 'step': 3}
"""
import json
import os
from collections import OrderedDict

import numpy as np

from .device import device
from .tensor import Tensor

_SKELETON = "__numgrad__"
_FORMAT = 1


def _encode(obj, path, arrays):
    if isinstance(obj, Tensor):
        from .nn.parameter import Parameter
        # a tensor on the GPU is stored from the host (Tensor's own detach and cpu: a lazy
        # placeholder's refuse, Note [placeholders refuse Tensor functions] in nn/uninitialized.py)
        arrays[path] = Tensor.cpu(Tensor.detach(obj))._data
        return {"__tensor__": path, "requires_grad": obj.requires_grad,
                "parameter": isinstance(obj, Parameter)}
    if isinstance(obj, np.ndarray):
        arrays[path] = obj
        return {"__ndarray__": path}
    if isinstance(obj, dict):
        items = [[_encode(k, None, arrays), _encode(v, f"{path}/{k}" if path else str(k), arrays)]
                 for k, v in obj.items()]
        return {"__dict__": items, "ordered": isinstance(obj, OrderedDict)}
    if isinstance(obj, (list, tuple)):
        values = [_encode(v, f"{path}/{i}" if path else str(i), arrays) for i, v in enumerate(obj)]
        return {"__tuple__": values} if isinstance(obj, tuple) else values
    if isinstance(obj, np.generic):
        return obj.item()
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    raise TypeError(f"numgrad.save cannot store objects of type {type(obj).__name__} (only "
                    "tensors, arrays, numbers, strings, None and dicts, lists and tuples of them)")


def _decode(node, archive, target):
    if isinstance(node, list):
        return [_decode(v, archive, target) for v in node]
    if not isinstance(node, dict):
        return node
    if "__tensor__" in node:
        t = Tensor._make(archive[node["__tensor__"]], False).to(target)
        if node["parameter"]:
            from .nn.parameter import Parameter
            return Parameter(t, node["requires_grad"])
        return t.requires_grad_(True) if node["requires_grad"] else t
    if "__ndarray__" in node:
        return archive[node["__ndarray__"]]
    if "__tuple__" in node:
        return tuple(_decode(v, archive, target) for v in node["__tuple__"])
    pairs = [(_decode(k, archive, target), _decode(v, archive, target))
             for k, v in node["__dict__"]]
    return OrderedDict(pairs) if node["ordered"] else dict(pairs)


def save(obj, f):
    """Write obj (a state dict, or any nest of dicts, lists and tuples of tensors, arrays,
    numbers, strings and None) to f, a path or a binary file object, as .npz."""
    arrays = {}
    skeleton = {"format": _FORMAT, "root": _encode(obj, "", arrays)}
    arrays[_SKELETON] = np.array(json.dumps(skeleton))
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as handle:       # np.savez(path) would append ".npz" to the name
            np.savez(handle, **arrays)
    else:
        np.savez(f, **arrays)


def load(f, map_location=None, weights_only=True):
    """Read what save wrote (from a path or a binary file object). Tensors come back as leaves
    with their requires_grad flag, on the CPU or on map_location ("cuda", a numgrad.device);
    parameters as Parameters."""
    if map_location is not None and not isinstance(map_location, (str, device)):
        raise NotImplementedError("numgrad.load's map_location is a device (or its name)")
    target = device("cpu" if map_location is None else map_location)
    with np.load(f, allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    skeleton = json.loads(str(arrays.pop(_SKELETON)))
    if skeleton.get("format") != _FORMAT:
        raise RuntimeError(f"unknown numgrad file format {skeleton.get('format')!r}")
    return _decode(skeleton["root"], arrays, target)
