"""grad_fn._saved_<name> of reductions, selections, scans and splits: the dims, keepdim, the
input's sizes and the scalar arguments torch's node keeps besides tensors, with the values torch
2.13 shows (dims as the user gave them, a negative one as 2**64 plus it; None where not given)."""
import pytest

import numgrad as ng
from test_saved_attributes_shapes import shown

NEG1 = 18446744073709551615         # dim -1 as torch's node shows it (uint64)
NEG2 = 18446744073709551614


def _x():
    return ng.tensor([[1.0, 2.0, 3.0], [3.0, 4.0, 5.0]], requires_grad=True)


SIZES = {"self_sym_sizes": (2, 3)}
CASES = {
    "sum": (lambda x: x.sum(), "SumBackward0", SIZES),
    "sum_dim": (lambda x: x.sum(0), "SumBackward1", {"dim": (0,), "keepdim": False, **SIZES}),
    "sum_neg": (lambda x: x.sum(-1), "SumBackward1", {"dim": (NEG1,), "keepdim": False, **SIZES}),
    "sum_dims_keep": (lambda x: x.sum((0, 1), keepdim=True), "SumBackward1",
                      {"dim": (0, 1), "keepdim": True, **SIZES}),
    "sum_list_order_kept": (lambda x: x.sum([1, 0]), "SumBackward1",
                            {"dim": (1, 0), "keepdim": False, **SIZES}),
    "sum_empty_dims": (lambda x: x.sum(()), "SumBackward1", {"dim": (), "keepdim": False, **SIZES}),
    "sum_dim_none": (lambda x: x.sum(dim=None), "SumBackward1",
                     {"dim": None, "keepdim": False, **SIZES}),
    "mean": (lambda x: x.mean(), "MeanBackward0", {"self_sym_numel": 6, **SIZES}),
    "mean_dim_keep": (lambda x: x.mean(1, keepdim=True), "MeanBackward1",
                      {"dim": (1,), "keepdim": True, "self_sym_numel": 6, **SIZES}),
    "mean_neg": (lambda x: x.mean(-1), "MeanBackward1",
                 {"dim": (NEG1,), "keepdim": False, "self_sym_numel": 6, **SIZES}),
    "mean_dim_none": (lambda x: x.mean(None), "MeanBackward1",
                      {"dim": None, "keepdim": False, "self_sym_numel": 6, **SIZES}),
    "prod": (lambda x: x.prod(), "ProdBackward0", {}),
    "prod_dim": (lambda x: x.prod(1), "ProdBackward1", {"dim": 1, "keepdim": False}),
    "prod_neg_keep": (lambda x: x.prod(-1, keepdim=True), "ProdBackward1",
                      {"dim": NEG1, "keepdim": True}),
    "logsumexp": (lambda x: x.logsumexp(1), "LogsumexpBackward0", {"dim": (1,), "keepdim": False}),
    "logsumexp_neg_keep": (lambda x: x.logsumexp(-1, keepdim=True), "LogsumexpBackward0",
                           {"dim": (NEG1,), "keepdim": True}),
    "amax": (lambda x: x.amax(1), "AmaxBackward0", {"dim": (1,), "keepdim": False}),
    "amax_default": (lambda x: x.amax(), "AmaxBackward0", {"dim": (), "keepdim": False}),
    "amin_dims_keep": (lambda x: x.amin((0, 1), keepdim=True), "AminBackward0",
                       {"dim": (0, 1), "keepdim": True}),
    "amin_neg_list": (lambda x: x.amin([-1]), "AminBackward0", {"dim": (NEG1,), "keepdim": False}),
    "max_all": (lambda x: x.max(), "MaxBackward1", {}),
    "min_all": (lambda x: x.min(), "MinBackward1", {}),
    "max_dim": (lambda x: x.max(1)[0], "MaxBackward0", {"dim": 1, "keepdim": False, **SIZES}),
    "max_neg_keep": (lambda x: x.max(dim=-1, keepdim=True)[0], "MaxBackward0",
                     {"dim": NEG1, "keepdim": True, **SIZES}),
    "min_dim_keep": (lambda x: x.min(0, keepdim=True)[0], "MinBackward0",
                     {"dim": 0, "keepdim": True, **SIZES}),
    "cumsum": (lambda x: x.cumsum(1), "CumsumBackward0", {"dim": 1}),
    "cumsum_neg": (lambda x: x.cumsum(-1), "CumsumBackward0", {"dim": NEG1}),
    "cumprod": (lambda x: x.cumprod(0), "CumprodBackward0", {"dim": 0}),
    "cumprod_neg": (lambda x: x.cumprod(-2), "CumprodBackward0", {"dim": NEG2}),
    "var_dim": (lambda x: x.var(1), "VarBackward0",
                {"correction": 1, "dim": (1,), "keepdim": False}),
    "var_correction_keep": (lambda x: x.var(0, correction=0, keepdim=True), "VarBackward0",
                            {"correction": 0, "dim": (0,), "keepdim": True}),
    "var_default": (lambda x: x.var(), "VarBackward0",
                    {"correction": None, "dim": None, "keepdim": False}),
    "var_keepdim_only": (lambda x: x.var(keepdim=True), "VarBackward0",
                         {"correction": None, "dim": None, "keepdim": True}),
    "var_dim_none": (lambda x: x.var(dim=None), "VarBackward0",
                     {"correction": 1, "dim": None, "keepdim": False}),
    "var_unbiased_false": (lambda x: x.var(1, unbiased=False), "VarBackward0",
                           {"correction": 0, "dim": (1,), "keepdim": False}),
    "var_unbiased_only": (lambda x: x.var(unbiased=True), "VarBackward0",
                          {"correction": 1, "dim": None, "keepdim": False}),
    "var_bool_is_unbiased": (lambda x: x.var(False), "VarBackward0",
                             {"correction": 0, "dim": None, "keepdim": False}),
    "var_neg": (lambda x: x.var(-1), "VarBackward0",
                {"correction": 1, "dim": (NEG1,), "keepdim": False}),
    "var_float_correction": (lambda x: x.var(1, correction=0.5), "VarBackward0",
                             {"correction": 0.5, "dim": (1,), "keepdim": False}),
    "var_correction_none": (lambda x: x.var(1, correction=None), "VarBackward0",
                            {"correction": None, "dim": (1,), "keepdim": False}),
    "var_correction_only": (lambda x: x.var(correction=2), "VarBackward0",
                            {"correction": 2, "dim": None, "keepdim": False}),
    "std": (lambda x: x.std(), "StdBackward0", {"correction": None, "dim": None, "keepdim": False}),
    "std_neg_keep": (lambda x: x.std(-1, keepdim=True), "StdBackward0",
                     {"correction": 1, "dim": (NEG1,), "keepdim": True}),
    "std_unbiased_false": (lambda x: x.std(0, unbiased=False), "StdBackward0",
                           {"correction": 0, "dim": (0,), "keepdim": False}),
    "var_mean": (lambda x: ng.var_mean(x, 1)[1], "VarMeanBackward0",
                 {"correction": 1, "dim": (1,), "keepdim": False}),
    "std_mean": (lambda x: ng.std_mean(x, -1, keepdim=True, correction=0)[0], "StdMeanBackward0",
                 {"correction": 0, "dim": (NEG1,), "keepdim": True}),
    "norm": (lambda x: x.norm(), "LinalgVectorNormBackward0",
             {"dim": None, "keepdim": False, "ord": 2}),
    "norm_dim": (lambda x: x.norm(p=1, dim=1), "LinalgVectorNormBackward0",
                 {"dim": (1,), "keepdim": False, "ord": 1}),
    "norm_neg_keep": (lambda x: x.norm(dim=-1, keepdim=True), "LinalgVectorNormBackward0",
                      {"dim": (NEG1,), "keepdim": True, "ord": 2}),
    "norm_float": (lambda x: x.norm(2.5), "LinalgVectorNormBackward0",
                   {"dim": None, "keepdim": False, "ord": 2.5}),
    "norm_p_none": (lambda x: x.norm(p=None), "LinalgVectorNormBackward0",
                    {"dim": None, "keepdim": False, "ord": 2.0}),
    "norm_inf": (lambda x: x.norm(float("inf")), "LinalgVectorNormBackward0",
                 {"dim": None, "keepdim": False, "ord": float("inf")}),
    "vector_norm": (lambda x: ng.linalg.vector_norm(x, 3, dim=-1), "LinalgVectorNormBackward0",
                    {"dim": (NEG1,), "keepdim": False, "ord": 3}),
    "vector_norm_default": (lambda x: ng.linalg.vector_norm(x), "LinalgVectorNormBackward0",
                            {"dim": None, "keepdim": False, "ord": 2}),
    # linalg.norm chooses the order itself: a float
    "linalg_norm": (lambda x: ng.linalg.norm(x), "LinalgVectorNormBackward0",
                    {"dim": None, "keepdim": False, "ord": 2.0}),
    "linalg_norm_dim": (lambda x: ng.linalg.norm(x, dim=1), "LinalgVectorNormBackward0",
                        {"dim": (1,), "keepdim": False, "ord": 2.0}),
    "logcumsumexp": (lambda x: x.logcumsumexp(-1), "LogcumsumexpBackward0", {"dim": NEG1}),
    "topk": (lambda x: x.topk(2)[0], "TopkBackward0", {"dim": NEG1, **SIZES}),
    "topk_dim": (lambda x: x.topk(1, 0)[0], "TopkBackward0", {"dim": 0, **SIZES}),
    "sort": (lambda x: x.sort(1, descending=True)[0], "SortBackward0", {"dim": 1, **SIZES}),
    "sort_default": (lambda x: x.sort()[0], "SortBackward0", {"dim": NEG1, **SIZES}),
    "split": (lambda x: x.split(1)[0], "SplitBackward0",
              {"dim": 0, "split_size": 1, **SIZES}),
    "split_larger_than_size": (lambda x: x.split(5, 1)[0], "SplitBackward0",
                               {"dim": 1, "split_size": 5, **SIZES}),
    "split_neg": (lambda x: x.split(2, -1)[0], "SplitBackward0",
                  {"dim": NEG1, "split_size": 2, **SIZES}),
    "split_sizes": (lambda x: x.split([1, 2], 1)[1], "SplitWithSizesBackward0",
                    {"dim": 1, "split_sizes": (1, 2), **SIZES}),
    "split_sizes_neg": (lambda x: x.split((2, 1), -1)[0], "SplitWithSizesBackward0",
                        {"dim": NEG1, "split_sizes": (2, 1), **SIZES}),
    "chunk": (lambda x: x.chunk(3, 1)[0], "SplitBackward0", {"dim": 1, "split_size": 1, **SIZES}),
    "chunk_neg": (lambda x: x.chunk(2, -1)[1], "SplitBackward0",
                  {"dim": NEG1, "split_size": 2, **SIZES}),
    "unbind": (lambda x: x.unbind(1)[0], "UnbindBackward0", {"dim": 1}),
    "unbind_neg": (lambda x: x.unbind(-2)[1], "UnbindBackward0", {"dim": NEG2}),
    "median_dim": (lambda x: x.median(1)[0], "MedianBackward1",
                   {"dim": 1, "keepdim": False, **SIZES}),
    "nanmedian_neg_keep": (lambda x: x.nanmedian(-1, keepdim=True)[0], "NanmedianBackward1",
                           {"dim": NEG1, "keepdim": True, **SIZES}),
    "kthvalue": (lambda x: x.kthvalue(2)[0], "KthvalueBackward0",
                 {"dim": NEG1, "keepdim": False, **SIZES}),
    "kthvalue_keep": (lambda x: x.kthvalue(1, 0, keepdim=True)[0], "KthvalueBackward0",
                      {"dim": 0, "keepdim": True, **SIZES}),
    "mode": (lambda x: x.mode(0)[0], "ModeBackward0", {"dim": 0, "keepdim": False, **SIZES}),
    "cummax": (lambda x: x.cummax(1)[0], "CummaxBackward0", {"dim": 1}),
    "cummin_neg": (lambda x: x.cummin(-1)[0], "CumminBackward0", {"dim": NEG1}),
    "nansum": (lambda x: x.nansum(), "NansumBackward0", {"dim": None, "keepdim": False}),
    "nansum_neg_keep": (lambda x: x.nansum(-1, keepdim=True), "NansumBackward0",
                        {"dim": (NEG1,), "keepdim": True}),
    "aminmax": (lambda x: ng.aminmax(x).min, "AminmaxBackward0", {"dim": None, "keepdim": False}),
    "aminmax_neg": (lambda x: ng.aminmax(x, dim=-1).max, "AminmaxBackward0",
                    {"dim": NEG1, "keepdim": False}),
}


@pytest.mark.parametrize("name", list(CASES))
def test_the_node_shows_torchs_attributes(name):
    op, node_name, expected = CASES[name]
    node = op(_x()).grad_fn
    assert node.name() == node_name
    assert shown(node) == expected
    # the types too: torch keeps keepdim a bool, ints as ints and a float order a float
    for key, value in expected.items():
        assert type(getattr(node, "_saved_" + key)) is type(value), key


@pytest.mark.parametrize("name", ["sum_neg", "mean_dim_keep", "max_neg_keep", "var_dim",
                                  "norm_dim", "split_sizes", "cumprod", "kthvalue", "unbind"])
def test_the_attributes_stay_after_backward(name):
    op, _, expected = CASES[name]
    out = op(_x())
    out.sum().backward()
    assert shown(out.grad_fn) == expected


def test_a_0d_input():
    s = ng.tensor(2.0, requires_grad=True)
    assert shown(s.sum().grad_fn) == {"self_sym_sizes": ()}
    assert shown(s.sum(-1).grad_fn) == {"dim": (NEG1,), "keepdim": False, "self_sym_sizes": ()}
    assert shown(s.max(-1)[0].grad_fn) == {"dim": NEG1, "keepdim": False, "self_sym_sizes": ()}
    assert shown(s.cumsum(0).grad_fn) == {"dim": 0}
    assert shown(s.kthvalue(1)[0].grad_fn) == {"dim": NEG1, "keepdim": False,
                                                "self_sym_sizes": ()}
    median = s.median(0)[0].grad_fn
    assert median.name() == "MedianBackward1"
    assert shown(median) == {"dim": 0, "keepdim": False, "self_sym_sizes": ()}


def test_the_sums_of_a_broadcast_gradient_under_create_graph():
    """torch's sum_to: a sum over the broadcast dims keeping them, then a view; to a scalar the
    full sum."""
    x = _x()
    v = ng.tensor([1.0, 2.0, 3.0], requires_grad=True)
    g, = ng.autograd.grad((x * v).sum(), v, create_graph=True)
    summed = g.grad_fn.next_functions[0][0]
    assert summed.name() == "SumBackward1"
    assert shown(summed) == {"dim": (0,), "keepdim": True, "self_sym_sizes": (2, 3)}
    s = ng.tensor(3.0, requires_grad=True)
    g, = ng.autograd.grad((x * s).sum(), s, create_graph=True)
    assert g.grad_fn.name() == "SumBackward0"
    assert shown(g.grad_fn) == {"self_sym_sizes": (2, 3)}


def test_var_mean_with_a_bool_is_over_all_dims():
    x = _x()
    var, mean = ng.var_mean(x, True)
    assert var.shape == () and mean.shape == ()
    assert shown(mean.grad_fn) == {"correction": 1, "dim": None, "keepdim": False}



def test_chunks_of_an_empty_dim_are_torchs_split_with_sizes():
    x = ng.zeros(2, 0, requires_grad=True)
    pieces = x.chunk(3, -1)
    assert [tuple(p.shape) for p in pieces] == [(2, 0)] * 3
    node = pieces[0].grad_fn
    assert node.name() == "SplitWithSizesBackward0"
    assert shown(node) == {"dim": NEG1, "split_sizes": (0, 0, 0), "self_sym_sizes": (2, 0)}
