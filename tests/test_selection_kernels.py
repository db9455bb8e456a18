"""topk and kthvalue pick torch's elements among ties through the compiled selection
(numgrad/kernels/selection.py) on every line, for every dtype: large int64 compared by rank,
NaN, +-inf and -0.0 as torch ranks them, whole blocks with sorted=False."""
import numpy as np

import numgrad as ng

NAN, INF = float("nan"), float("inf")


def test_int64_beyond_float64_precision_keeps_its_ties():
    # 2**62 + 1 and 2**62 are one float64: compared as float64 they would tie
    big = ng.tensor([[2**62 + 1, 2**62, 2**62 + 1, 2**62 + 1, 2**62, -2**62, 2**62 + 1]])
    # torch 2.13 gives [[3, 6, 0]], [[5, 1]], [4], [0]
    assert big.topk(3).indices.tolist() == [[3, 6, 0]]
    assert big.topk(2, largest=False).indices.tolist() == [[5, 1]]
    assert big.kthvalue(3).indices.tolist() == [4]
    assert big.kthvalue(5).indices.tolist() == [0]
    assert big.topk(3).values.tolist() == [[2**62 + 1] * 3]


def test_tied_block_unsorted():
    m = ng.tensor([[0., 1, 0, 2, 0, 0, 1, 0, 0, 2, 0, 1], [1., 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0]])
    # torch 2.13 gives these
    assert m.topk(5, sorted=False).indices.tolist() == [[6, 11, 9, 3, 1], [1, 8, 7, 6, 0]]
    assert m.topk(4, largest=False, sorted=False).indices.tolist() == [[7, 5, 0, 4], [5, 4, 11, 9]]
    assert m.kthvalue(6).indices.tolist() == [4, 3]
    z = ng.zeros(300)
    assert z.topk(5).indices.tolist() == [198, 200, 199, 201, 197]
    assert z.topk(5, sorted=False).indices.tolist() == [198, 200, 199, 201, 197]
    assert z.kthvalue(150).indices.item() == 0


def test_nan_inf_and_signed_zero():
    for dtype in (ng.float64, ng.float32):
        s = ng.tensor([NAN, -0.0, INF, 0.0, -INF, NAN, 1.0, 0.0, -0.0, INF, NAN], dtype=dtype)
        # torch 2.13 gives [4, 1, 7, 8, 3, 6], [5, 10, 0, 2], 7, 0
        assert s.topk(6, largest=False).indices.tolist() == [4, 1, 7, 8, 3, 6]
        assert s.topk(4).indices.tolist() == [5, 10, 0, 2]
        assert s.kthvalue(3).indices.item() == 7
        assert s.kthvalue(10).indices.item() == 0
        assert np.isnan(s.topk(4).values.numpy()[:3]).all()
