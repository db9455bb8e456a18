"""grad_fn._saved_<name> of shape, view and indexing ops: the dims, indices, slice bounds, pads and
the input's sizes torch's node keeps besides tensors, with the values torch 2.13 shows (arguments
as the user gave them, a negative int64 one as 2**64 plus it; where an index applies several
steps, those of torch's node for the last one)."""
import numpy as np
import pytest

import numgrad as ng
import numgrad.nn.functional as F

NEG1, NEG2, NEG3, NEG10 = (2 ** 64 - k for k in (1, 2, 3, 10))   # torch's uint64 of -k
NO_END = 2 ** 63 - 1        # the end of a slice given none


def _x():
    return ng.arange(24.0).reshape(2, 3, 4).requires_grad_()


def _m():
    return ng.arange(12.0).reshape(3, 4).requires_grad_()


def shown(node):
    """The node's non-tensor _saved_ attributes, by torch's name (a saved tensor freed by
    backward raises when read, as torch's: skipped)."""
    values = {}
    for name in dir(node):
        if name.startswith("_saved_"):
            try:
                values[name[len("_saved_"):]] = getattr(node, name)
            except RuntimeError:
                continue
    return {k: v for k, v in values.items()
            if not isinstance(v, ng.Tensor)
            and not (isinstance(v, tuple) and any(isinstance(e, ng.Tensor) for e in v))}


SIZES = {"self_sym_sizes": (2, 3, 4)}
CASES = {
    "view": (lambda x, m: x.view(6, 4), "ViewBackward0", {**SIZES}),
    "view_infer": (lambda x, m: x.view(-1), "ViewBackward0", {**SIZES}),
    "view_as": (lambda x, m: x.view_as(x[0].reshape(-1).repeat(2)), "ViewBackward0", {**SIZES}),
    "reshape": (lambda x, m: x.reshape(4, 6), "ViewBackward0", {**SIZES}),
    "reshape_alias": (lambda x, m: x.transpose(1, 2).reshape(2, 4, 3), "ReshapeAliasBackward0",
                      {"self_sym_sizes": (2, 4, 3)}),
    "reshape_copy": (lambda x, m: x.transpose(0, 1).reshape(6, 4), "UnsafeViewBackward0",
                     {"self_sym_sizes": (3, 2, 4)}),
    "flatten": (lambda x, m: x.flatten(), "ViewBackward0", {**SIZES}),
    "flatten_from": (lambda x, m: x.flatten(1), "ViewBackward0", {**SIZES}),
    "flatten_neg": (lambda x, m: x.flatten(-2, -1), "ViewBackward0", {**SIZES}),
    "unflatten": (lambda x, m: x.unflatten(2, (2, 2)), "ViewBackward0", {**SIZES}),
    "ravel": (lambda x, m: x.ravel(), "ViewBackward0", {**SIZES}),
    "transpose": (lambda x, m: x.transpose(0, 2), "TransposeBackward0", {"dim0": 0, "dim1": 2}),
    "transpose_neg": (lambda x, m: x.transpose(-1, 0), "TransposeBackward0",
                      {"dim0": NEG1, "dim1": 0}),
    "swapaxes": (lambda x, m: x.swapaxes(1, -2), "TransposeBackward0", {"dim0": 1, "dim1": NEG2}),
    "mT": (lambda x, m: x.mT, "TransposeBackward0", {"dim0": NEG2, "dim1": NEG1}),
    "T": (lambda x, m: m.T, "PermuteBackward0", {"dims": (1, 0)}),
    "t": (lambda x, m: m.t(), "TBackward0", {}),
    "permute": (lambda x, m: x.permute(2, 0, 1), "PermuteBackward0", {"dims": (2, 0, 1)}),
    "permute_neg": (lambda x, m: x.permute(-1, 0, 1), "PermuteBackward0", {"dims": (NEG1, 0, 1)}),
    "permute_list": (lambda x, m: x.permute([1, 0, 2]), "PermuteBackward0", {"dims": (1, 0, 2)}),
    "movedim": (lambda x, m: x.movedim(0, -1), "PermuteBackward0", {"dims": (1, 2, 0)}),
    "movedim_tuple": (lambda x, m: x.movedim((0, 1), (-1, -2)), "PermuteBackward0",
                      {"dims": (2, 1, 0)}),
    "index_int": (lambda x, m: x[1], "SelectBackward0", {"dim": 0, "index": 1, **SIZES}),
    "index_neg": (lambda x, m: x[-1], "SelectBackward0", {"dim": 0, "index": NEG1, **SIZES}),
    "index_neg_dim1": (lambda x, m: x[:, -1], "SelectBackward0",
                       {"dim": 1, "index": NEG1, **SIZES}),
    "index_ellipsis": (lambda x, m: x[..., 2], "SelectBackward0", {"dim": 2, "index": 2, **SIZES}),
    "index_two_ints": (lambda x, m: x[1, 2], "SelectBackward0",
                       {"dim": 0, "index": 2, "self_sym_sizes": (3, 4)}),
    "index_none_int": (lambda x, m: x[None, 1], "SelectBackward0",
                       {"dim": 1, "index": 1, "self_sym_sizes": (1, 2, 3, 4)}),
    "index_step_int": (lambda x, m: x[::2, 1], "SelectBackward0",
                       {"dim": 1, "index": 1, "self_sym_sizes": (1, 3, 4)}),
    "index_full_slice_int": (lambda x, m: x[0:2, 1], "SelectBackward0",
                             {"dim": 1, "index": 1, **SIZES}),
    "index_over_full_slice_int": (lambda x, m: x[0:100, 1], "SelectBackward0",
                                  {"dim": 1, "index": 1, **SIZES}),
    "select": (lambda x, m: x.select(1, 2), "SelectBackward0", {"dim": 1, "index": 2, **SIZES}),
    "select_neg": (lambda x, m: x.select(-1, -2), "SelectBackward0",
                   {"dim": NEG1, "index": NEG2, **SIZES}),
    "slice": (lambda x, m: x[1:], "SliceBackward0",
              {"dim": 0, "end": NO_END, **SIZES, "start": 1, "step": 1}),
    "slice_dim1": (lambda x, m: x[:, 1:], "SliceBackward0",
                   {"dim": 1, "end": NO_END, **SIZES, "start": 1, "step": 1}),
    "slice_neg_start": (lambda x, m: x[:, -2:], "SliceBackward0",
                        {"dim": 1, "end": NO_END, **SIZES, "start": NEG2, "step": 1}),
    "slice_neg_stop": (lambda x, m: x[:, :-1], "SliceBackward0",
                       {"dim": 1, "end": NEG1, **SIZES, "start": 0, "step": 1}),
    "slice_step": (lambda x, m: x[:, ::2], "SliceBackward0",
                   {"dim": 1, "end": NO_END, **SIZES, "start": 0, "step": 2}),
    "slice_two": (lambda x, m: x[1:, ::2], "SliceBackward0",
                  {"dim": 1, "end": NO_END, "self_sym_sizes": (1, 3, 4), "start": 0, "step": 2}),
    "slice_bounds": (lambda x, m: x[:, 1:3], "SliceBackward0",
                     {"dim": 1, "end": 3, **SIZES, "start": 1, "step": 1}),
    "slice_all": (lambda x, m: x[:], "SliceBackward0",
                  {"dim": 0, "end": NO_END, **SIZES, "start": 0, "step": 1}),
    "slice_past_start": (lambda x, m: x[-10:], "SliceBackward0",
                         {"dim": 0, "end": NO_END, **SIZES, "start": NEG10, "step": 1}),
    "slice_int_first": (lambda x, m: x[1, 1:], "SliceBackward0",
                        {"dim": 0, "end": NO_END, "self_sym_sizes": (3, 4), "start": 1, "step": 1}),
    "slice_after_none": (lambda x, m: x[None, ..., 1:],
                         "SliceBackward0", {"dim": 3, "end": NO_END,
                          "self_sym_sizes": (1, 2, 3, 4), "start": 1, "step": 1}),
    "slice_numpy_ints": (lambda x, m: x[:, np.int64(1):np.int64(3)], "SliceBackward0",
                         {"dim": 1, "end": 3, **SIZES, "start": 1, "step": 1}),
    "alias": (lambda x, m: x[:, :], "AliasBackward0", {}),
    "narrow": (lambda x, m: x.narrow(1, 1, 2), "SliceBackward0",
               {"dim": 1, "end": 3, **SIZES, "start": 1, "step": 1}),
    "narrow_neg": (lambda x, m: x.narrow(-1, -3, 2), "SliceBackward0",
                   {"dim": NEG1, "end": 3, **SIZES, "start": 1, "step": 1}),
    "narrow_whole": (lambda x, m: x.narrow(1, 0, 3), "SliceBackward0",
                     {"dim": 1, "end": 3, **SIZES, "start": 0, "step": 1}),
    "tensor_split": (lambda x, m: x.tensor_split([1], -1)[1], "SliceBackward0",
                     {"dim": 2, "end": 4, **SIZES, "start": 1, "step": 1}),
    "tensor_split_whole": (lambda x, m: x.tensor_split(1, 1)[0], "SliceBackward0",
                           {"dim": 1, "end": 3, **SIZES, "start": 0, "step": 1}),
    "hsplit": (lambda x, m: m.hsplit([1])[1], "SliceBackward0",
               {"dim": 1, "end": 4, "self_sym_sizes": (3, 4), "start": 1, "step": 1}),
    "unsqueeze": (lambda x, m: x.unsqueeze(1), "UnsqueezeBackward0", {"dim": 1}),
    "unsqueeze_neg": (lambda x, m: x.unsqueeze(-1), "UnsqueezeBackward0", {"dim": NEG1}),
    "index_none": (lambda x, m: x[None], "UnsqueezeBackward0", {"dim": 0}),
    "index_none_dim1": (lambda x, m: x[:, None], "UnsqueezeBackward0", {"dim": 1}),
    "index_int_none": (lambda x, m: x[1, None], "UnsqueezeBackward0", {"dim": 0}),
    "index_two_nones": (lambda x, m: x[None, None], "UnsqueezeBackward0", {"dim": 1}),
    "index_none_int_none": (lambda x, m: x[None, 1, None], "UnsqueezeBackward0", {"dim": 1}),
    "squeeze": (lambda x, m: x[:1].squeeze(), "SqueezeBackward0", {"self_sym_sizes": (1, 3, 4)}),
    "squeeze_dim": (lambda x, m: x[:1].squeeze(0), "SqueezeBackward1",
                    {"dim": 0, "self_sym_sizes": (1, 3, 4)}),
    "squeeze_neg": (lambda x, m: x[:1].squeeze(-3), "SqueezeBackward1",
                    {"dim": NEG3, "self_sym_sizes": (1, 3, 4)}),
    "squeeze_dims": (lambda x, m: x[:1, :, :1].squeeze((0, -1)), "SqueezeBackward2",
                     {"dim": (0, NEG1), "self_sym_sizes": (1, 3, 1)}),
    "squeeze_not_one": (lambda x, m: x.squeeze(1), "SqueezeBackward1", {"dim": 1, **SIZES}),
    "cat": (lambda x, m: ng.cat([x, x], 1), "CatBackward0", {"dim": 1}),
    "cat_neg": (lambda x, m: ng.cat([x, x], -1), "CatBackward0", {"dim": NEG1}),
    "cat_default": (lambda x, m: ng.cat([x, x]), "CatBackward0", {"dim": 0}),
    "hstack": (lambda x, m: ng.hstack([x, x]), "CatBackward0", {"dim": 1}),
    "stack": (lambda x, m: ng.stack([x, x]), "StackBackward0", {"dim": 0}),
    "stack_neg": (lambda x, m: ng.stack([x, x], -1), "StackBackward0", {"dim": NEG1}),
    "repeat": (lambda x, m: x.repeat(2, 1, 1, 1), "RepeatBackward0",
               {"repeats": (2, 1, 1, 1), **SIZES}),
    "repeat_list": (lambda x, m: x.repeat([1, 2, 1]), "RepeatBackward0",
                    {"repeats": (1, 2, 1), **SIZES}),
    "tile": (lambda x, m: m.tile((2,)), "RepeatBackward0",
             {"repeats": (1, 2), "self_sym_sizes": (3, 4)}),
    "gather": (lambda x, m: x.gather(1, ng.zeros(2, 1, 4, dtype=ng.long)), "GatherBackward0",
               {"dim": 1, "sparse_grad": False}),
    "gather_neg": (lambda x, m: x.gather(-1, ng.zeros(2, 3, 1, dtype=ng.long)), "GatherBackward0",
                   {"dim": NEG1, "sparse_grad": False}),
    "take_along_dim": (lambda x, m: ng.take_along_dim(x, ng.zeros(2, 3, 1, dtype=ng.long), -1),
                       "GatherBackward0", {"dim": 2, "sparse_grad": False}),
    "index_select": (lambda x, m: x.index_select(1, ng.tensor([0, 2])), "IndexSelectBackward0",
                     {"dim": 1, **SIZES}),
    "index_select_neg": (lambda x, m: x.index_select(-1, ng.tensor([3])), "IndexSelectBackward0",
                         {"dim": NEG1, **SIZES}),
    "flip": (lambda x, m: x.flip(1), "FlipBackward0", {"dims": (1,)}),
    "flip_two": (lambda x, m: x.flip(0, -1), "FlipBackward0", {"dims": (0, NEG1)}),
    "fliplr": (lambda x, m: m.fliplr(), "FlipBackward0", {"dims": (1,)}),
    "roll": (lambda x, m: x.roll(1, 1), "RollBackward0", {"dims": (1,), "shifts": (1,)}),
    "roll_neg": (lambda x, m: x.roll(-1, -1), "RollBackward0",
                 {"dims": (NEG1,), "shifts": (NEG1,)}),
    "roll_dims": (lambda x, m: x.roll((1, 2), (0, 1)), "RollBackward0",
                  {"dims": (0, 1), "shifts": (1, 2)}),
    "roll_flat": (lambda x, m: x.roll(3), "RollBackward0", {"dims": (), "shifts": (3,)}),
    "diagonal": (lambda x, m: x.diagonal(), "DiagonalBackward0",
                 {"dim1": 0, "dim2": 1, "offset": 0, **SIZES}),
    "diagonal_args": (lambda x, m: x.diagonal(1, 0, -1), "DiagonalBackward0",
                      {"dim1": 0, "dim2": NEG1, "offset": 1, **SIZES}),
    "diagonal_neg_offset": (lambda x, m: x.diagonal(-1), "DiagonalBackward0",
                            {"dim1": 0, "dim2": 1, "offset": NEG1, **SIZES}),
    "diag_matrix": (lambda x, m: m.diag(1), "DiagonalBackward0_copy",
                    {"dim1": 0, "dim2": 1, "offset": 1, "self_sym_sizes": (3, 4)}),
    "diag_vector": (lambda x, m: m[0].diag(-1), "DiagEmbedBackward0",
                    {"dim1": NEG2, "dim2": NEG1, "offset": NEG1}),
    "diagflat": (lambda x, m: m[0].diagflat(), "DiagEmbedBackward0",
                 {"dim1": NEG2, "dim2": NEG1, "offset": 0}),
    "tril": (lambda x, m: x.tril(), "TrilBackward0", {"diagonal": 0}),
    "tril_neg": (lambda x, m: x.tril(-1), "TrilBackward0", {"diagonal": NEG1}),
    "triu": (lambda x, m: x.triu(2), "TriuBackward0", {"diagonal": 2}),
    "pad": (lambda x, m: F.pad(x, (1, 2)), "ConstantPadNdBackward0", {"pad": (1, 2)}),
    "pad_crop": (lambda x, m: F.pad(x, (1, 2, -1, 0)), "ConstantPadNdBackward0",
                 {"pad": (1, 2, NEG1, 0)}),
    "pad_list": (lambda x, m: F.pad(x, [1, 1], value=2.0), "ConstantPadNdBackward0",
                 {"pad": (1, 1)}),
    "index_list": (lambda x, m: x[[0, 1]], "IndexBackward0", {**SIZES}),
    "index_list_dim1": (lambda x, m: x[:, [0, 2]], "IndexBackward0", {**SIZES}),
    "index_slice_list": (lambda x, m: x[1:, [0, 1]], "IndexBackward0",
                         {"self_sym_sizes": (1, 3, 4)}),
    "index_int_list": (lambda x, m: x[0, [0, 1]], "IndexBackward0", {"self_sym_sizes": (3, 4)}),
    "index_none_list": (lambda x, m: x[None, [0, 1]], "IndexBackward0",
                        {"self_sym_sizes": (1, 2, 3, 4)}),
    "index_mask": (lambda x, m: x[x > 0], "IndexBackward0", {**SIZES}),
    "kron": (lambda x, m: ng.kron(m, m[0]), "UnsafeViewBackward0",
             {"self_sym_sizes": (3, 1, 4, 4)}),
    "expand": (lambda x, m: m[0].expand(2, 4), "ExpandBackward0", {"self_sym_sizes": (4,)}),
    "expand_keep": (lambda x, m: m[:1].expand(5, -1), "ExpandBackward0",
                    {"self_sym_sizes": (1, 4)}),
    "expand_as": (lambda x, m: m[0].expand_as(x), "ExpandBackward0", {"self_sym_sizes": (4,)}),
    "broadcast_to": (lambda x, m: m[0].broadcast_to((3, 4)), "ExpandBackward0",
                     {"self_sym_sizes": (4,)}),
    "unfold": (lambda x, m: x.unfold(2, 2, 1), "UnfoldBackward0",
               {"dimension": 2, "size": 2, "step": 1, **SIZES}),
    "unfold_neg": (lambda x, m: x.unfold(-1, 1, 2), "UnfoldBackward0",
                   {"dimension": NEG1, "size": 1, "step": 2, **SIZES}),
    "rot90": (lambda x, m: x.rot90(1, (1, 2)), "Rot90Backward0", {"dims": (1, 2), "k": 1}),
    "rot90_neg": (lambda x, m: m.rot90(-1), "Rot90Backward0", {"dims": (0, 1), "k": NEG1}),
    "transpose_": (lambda x, m: (x * 1).transpose_(0, -1), "TransposeBackward1",
                   {"dim0": 0, "dim1": NEG1}),
    "squeeze_": (lambda x, m: (x[None] * 1).squeeze_(), "SqueezeBackward3",
                 {"self_sym_sizes": (1, 2, 3, 4)}),
    "squeeze_dim_": (lambda x, m: (x[None] * 1).squeeze_(0), "SqueezeBackward4",
                     {"dim": 0, "self_sym_sizes": (1, 2, 3, 4)}),
    "squeeze_dims_": (lambda x, m: (x[None] * 1).squeeze_((0, -1)), "SqueezeBackward5",
                      {"dim": (0, NEG1), "self_sym_sizes": (1, 2, 3, 4)}),
    "unsqueeze_": (lambda x, m: (x * 1).unsqueeze_(-1), "UnsqueezeBackward1", {"dim": NEG1}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_node_shows_torchs_attributes(name):
    op, node_name, expected = CASES[name]
    node = op(_x(), _m()).grad_fn
    assert node.name() == node_name
    assert shown(node) == expected
    # the types too: ints as ints (a NumPy int in a slice too), sizes and dims as tuples
    for key, value in expected.items():
        got = getattr(node, "_saved_" + key)
        assert type(got) is type(value), key
        if isinstance(value, tuple):
            assert [type(e) for e in got] == [type(e) for e in value], key


@pytest.mark.parametrize("name", ["view", "reshape_copy", "transpose_neg", "permute_neg",
                                  "index_neg_dim1", "slice_two", "narrow_neg", "squeeze_dims",
                                  "cat_neg", "gather_neg", "roll_neg", "diagonal_args",
                                  "tril_neg", "pad_crop", "index_slice_list"])
def test_the_attributes_stay_after_backward(name):
    op, _, expected = CASES[name]
    out = op(_x(), _m())
    out.sum().backward()
    assert shown(out.grad_fn) == expected


def test_a_0d_input():
    s = ng.tensor(2.0, requires_grad=True) * 1
    assert shown(s.reshape(1, 1).grad_fn) == {"self_sym_sizes": ()}
    assert shown(s.flatten().grad_fn) == {"self_sym_sizes": ()}
    assert shown(s.unsqueeze(0).grad_fn) == {"dim": 0}
    assert shown(s[None].grad_fn) == {"dim": 0}


def test_the_values_are_the_nodes_own():
    """Each node keeps its call's values: a view of a view shows its own, the first its."""
    x = _x()
    first = x[1:]
    second = first[0, ::2]
    assert shown(second.grad_fn) == {"dim": 0, "start": 0, "end": NO_END, "step": 2,
                                     "self_sym_sizes": (3, 4)}
    assert shown(first.grad_fn) == {"dim": 0, "start": 1, "end": NO_END, "step": 1, **SIZES}
    with ng.no_grad():
        assert x[:, 1:].grad_fn is None and x.view(-1).grad_fn is None


def test_the_values_of_a_step_are_those_of_the_last_node_torch_records():
    """torch applies an index item by item; the full slices inside a tuple it skips, so the node
    and its sizes are those of the last item it applies."""
    x = _x()
    node = x[1:, :, ::2].grad_fn
    assert node.name() == "SliceBackward0"
    assert shown(node) == {"dim": 2, "start": 0, "end": NO_END, "step": 2,
                           "self_sym_sizes": (1, 3, 4)}
    node = x[1:, None, 2].grad_fn
    assert node.name() == "SelectBackward0"
    assert shown(node) == {"dim": 2, "index": 2, "self_sym_sizes": (1, 1, 3, 4)}
    node = x[0:2, ..., 1:3, :].grad_fn
    assert shown(node) == {"dim": 1, "start": 1, "end": 3, "step": 1, **SIZES}
    np.testing.assert_array_equal(x[0:2, ..., 1:3, :].detach().numpy(),
                                  np.arange(24.0).reshape(2, 3, 4)[:, 1:3])
