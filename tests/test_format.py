"""Tensor printing as torch 2.13 prints (torch/_tensor_str.py). Every expected string below is
torch's repr of the same tensor, printed by torch in a scratch script, with "torch." written
"numgrad."."""
import math

import numpy as np
import pytest

import numgrad as ng


@pytest.fixture(autouse=True)
def _default_printoptions():
    yield
    ng.set_printoptions(profile="default")
    ng.set_default_dtype(ng.float32)


@pytest.mark.parametrize("array, printed", [
    pytest.param(np.array([math.nan, 0.0], np.float32),
                 'tensor([nan, 0.])', id='nan-zero'),
    pytest.param(np.array([-0.0, 1.0], np.float32),
                 'tensor([-0., 1.])', id='negzero-one'),
    pytest.param(np.array([math.inf, 1.0], np.float32),
                 'tensor([inf, 1.])', id='inf-one'),
    pytest.param(np.array([math.inf, 1.5], np.float32),
                 'tensor([   inf, 1.5000])', id='inf-fixed'),
    pytest.param(np.array([math.nan, 1e-5, 1.0], np.float32),
                 'tensor([       nan, 1.0000e-05, 1.0000e+00])', id='nan-sci'),
    pytest.param(np.array([math.inf, -math.inf, math.nan], np.float32),
                 'tensor([inf, -inf, nan])', id='all-special'),
    pytest.param(np.array([-0.0], np.float32),
                 'tensor([-0.])', id='negzero'),
    pytest.param(np.array([0.0, 0.0], np.float32),
                 'tensor([0., 0.])', id='zeros'),
    # the width comes from the nonzero values: "-0.0000" is one character wider than the rest
    pytest.param(np.array([0.0, -0.0, 0.25], np.float32),
                 'tensor([0.0000, -0.0000, 0.2500])', id='zero-negzero-fixed'),
    pytest.param(np.array([0.5, 2.0], np.float32),
                 'tensor([0.5000, 2.0000])', id='fixed'),
    pytest.param(np.array([7.0], np.float32),
                 'tensor([7.])', id='integral'),
    pytest.param(np.array([1.0, -20.0, 300.0], np.float32),
                 'tensor([  1., -20., 300.])', id='integral-negative'),
    pytest.param(np.array([1000.0, 1.0], np.float32),
                 'tensor([1000.,    1.])', id='integral-1000x'),
    pytest.param(np.array([123456.0, 1.0], np.float32),
                 'tensor([1.2346e+05, 1.0000e+00])', id='integral-over-1000x'),
    pytest.param(np.array([1e8], np.float32),
                 'tensor([100000000.])', id='integral-1e8'),
    pytest.param(np.array([1e9], np.float32),
                 'tensor([1.0000e+09])', id='large'),
    pytest.param(np.array([1e-5, 1.0], np.float32),
                 'tensor([1.0000e-05, 1.0000e+00])', id='small'),
    pytest.param(np.array([0.0, 1e-31], np.float32),
                 'tensor([0.0000e+00, 1.0000e-31])', id='zeros-do-not-decide'),
    pytest.param(np.array([0.0, -0.4, 0.0, 1.1111e-31], np.float32),
                 'tensor([ 0.0000e+00, -4.0000e-01,  0.0000e+00,  1.1111e-31])', id='zeros-in-sci'),
    pytest.param(np.array([0.99995, 1e-4], np.float32),
                 'tensor([9.9995e-01, 1.0000e-04])', id='float32-1e-4-is-below'),
    pytest.param(np.array([1e300, -1.0], np.float64),
                 'tensor([1.0000e+300, -1.0000e+00], dtype=numgrad.float64)', id='float64-large'),
    pytest.param(np.array([5e-324, 1.0], np.float64),
                 'tensor([4.9407e-324,  1.0000e+00], dtype=numgrad.float64)',
                 id='float64-denormal'),
    pytest.param(np.array([-123.456, 0.001], np.float64),
                 'tensor([-1.2346e+02,  1.0000e-03], dtype=numgrad.float64)', id='float64-span'),
    pytest.param(np.array([-123.456, 0.5], np.float64),
                 'tensor([-123.4560,    0.5000], dtype=numgrad.float64)', id='float64-fixed'),
    pytest.param(np.array([1, -20, 300], np.int64),
                 'tensor([  1, -20, 300])', id='int64'),
    pytest.param(np.array([1, -20, 300], np.int32),
                 'tensor([  1, -20, 300], dtype=numgrad.int32)', id='int32'),
    pytest.param(np.array([12345678901, 0], np.int64),
                 'tensor([12345678901,           0])', id='int64-large'),
    pytest.param(np.array([True, False], np.bool_),
                 'tensor([ True, False])', id='bool'),
    pytest.param(np.array([True], np.bool_),
                 'tensor([True])', id='bool-true'),
    pytest.param(np.array(2.5, np.float32),
                 'tensor(2.5000)', id='0d-fixed'),
    pytest.param(np.array(7.0, np.float32),
                 'tensor(7.)', id='0d-integral'),
    pytest.param(np.array(math.nan, np.float32),
                 'tensor(nan)', id='0d-nan'),
    pytest.param(np.array(-0.0, np.float32),
                 'tensor(-0.)', id='0d-negzero'),
    pytest.param(np.array(-math.inf, np.float32),
                 'tensor(-inf)', id='0d-inf'),
    pytest.param(np.array(1e-7, np.float32),
                 'tensor(1.0000e-07)', id='0d-small'),
    pytest.param(np.array(2.5, np.float64),
                 'tensor(2.5000, dtype=numgrad.float64)', id='0d-float64'),
    pytest.param(np.array(-5, np.int64),
                 'tensor(-5)', id='0d-int64'),
    pytest.param(np.array(7, np.int32),
                 'tensor(7, dtype=numgrad.int32)', id='0d-int32'),
    pytest.param(np.array(False),
                 'tensor(False)', id='0d-bool'),
    pytest.param(np.zeros(0, np.float32),
                 'tensor([])', id='empty'),
    pytest.param(np.zeros(0, np.float64),
                 'tensor([], dtype=numgrad.float64)', id='empty-float64'),
    pytest.param(np.zeros(0, np.int64),
                 'tensor([], dtype=numgrad.int64)', id='empty-int64'),
    pytest.param(np.zeros(0, np.bool_),
                 'tensor([], dtype=numgrad.bool)', id='empty-bool'),
    pytest.param(np.zeros((0, 3), np.float32),
                 'tensor([], size=(0, 3))', id='empty-2d'),
    pytest.param(np.zeros((2, 0, 3), np.int32),
                 'tensor([], size=(2, 0, 3), dtype=numgrad.int32)', id='empty-3d-int32'),
    pytest.param(np.arange(24, dtype=np.float32).reshape(2, 3, 4),
                 'tensor([[[ 0.,  1.,  2.,  3.],\n'
                 '         [ 4.,  5.,  6.,  7.],\n'
                 '         [ 8.,  9., 10., 11.]],\n'
                 '\n'
                 '        [[12., 13., 14., 15.],\n'
                 '         [16., 17., 18., 19.],\n'
                 '         [20., 21., 22., 23.]]])', id='layout-2x3x4'),
    pytest.param(np.arange(5, dtype=np.float32).reshape(1, 1, 5) / 4,
                 'tensor([[[0.0000, 0.2500, 0.5000, 0.7500, 1.0000]]])', id='layout-1x1x5'),
    pytest.param(np.arange(16, dtype=np.int64).reshape(2, 2, 2, 2),
                 'tensor([[[[ 0,  1],\n'
                 '          [ 2,  3]],\n'
                 '\n'
                 '         [[ 4,  5],\n'
                 '          [ 6,  7]]],\n'
                 '\n'
                 '\n'
                 '        [[[ 8,  9],\n'
                 '          [10, 11]],\n'
                 '\n'
                 '         [[12, 13],\n'
                 '          [14, 15]]]])', id='layout-4d'),
    pytest.param(np.arange(6).reshape(2, 3) % 2 == 0,
                 'tensor([[ True, False,  True],\n'
                 '        [False,  True, False]])', id='layout-2d-bool'),
    pytest.param(np.linspace(0, 1, 20, dtype=np.float32),
                 'tensor([0.0000, 0.0526, 0.1053, 0.1579, 0.2105, 0.2632, 0.3158, 0.3684, 0.4211,\n'
                 '        0.4737, 0.5263, 0.5789, 0.6316, 0.6842, 0.7368, 0.7895, 0.8421, 0.8947,\n'
                 '        0.9474, 1.0000])', id='wrap-1d'),
    pytest.param(np.arange(30, dtype=np.int64) * 1000000,
                 'tensor([       0,  1000000,  2000000,  3000000,  4000000,  5000000,  6000000,\n'
                 '         7000000,  8000000,  9000000, 10000000, 11000000, 12000000, 13000000,\n'
                 '        14000000, 15000000, 16000000, 17000000, 18000000, 19000000, 20000000,\n'
                 '        21000000, 22000000, 23000000, 24000000, 25000000, 26000000, 27000000,\n'
                 '        28000000, 29000000])', id='wrap-1d-int'),
    pytest.param(np.arange(30, dtype=np.float32).reshape(2, 15) / 3,
                 'tensor([[0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667, 2.0000, 2.3333, 2.6667,\n'
                 '         3.0000, 3.3333, 3.6667, 4.0000, 4.3333, 4.6667],\n'
                 '        [5.0000, 5.3333, 5.6667, 6.0000, 6.3333, 6.6667, 7.0000, 7.3333, 7.6667,\n'
                 '         8.0000, 8.3333, 8.6667, 9.0000, 9.3333, 9.6667]])', id='wrap-2d-rows'),
    pytest.param(np.sin(np.arange(60, dtype=np.float32)).reshape(2, 1, 30),
                 'tensor([[[ 0.0000,  0.8415,  0.9093,  0.1411, -0.7568, -0.9589, -0.2794,\n'
                 '           0.6570,  0.9894,  0.4121, -0.5440, -1.0000, -0.5366,  0.4202,\n'
                 '           0.9906,  0.6503, -0.2879, -0.9614, -0.7510,  0.1499,  0.9129,\n'
                 '           0.8367, -0.0089, -0.8462, -0.9056, -0.1324,  0.7626,  0.9564,\n'
                 '           0.2709, -0.6636]],\n'
                 '\n'
                 '        [[-0.9880, -0.4040,  0.5514,  0.9999,  0.5291, -0.4282, -0.9918,\n'
                 '          -0.6435,  0.2964,  0.9638,  0.7451, -0.1586, -0.9165, -0.8318,\n'
                 '           0.0177,  0.8509,  0.9018,  0.1236, -0.7683, -0.9538, -0.2624,\n'
                 '           0.6702,  0.9866,  0.3959, -0.5588, -0.9998, -0.5216,  0.4362,\n'
                 '           0.9929,  0.6367]]])', id='wrap-3d-rows'),
    pytest.param(np.arange(40, dtype=np.int32) * 50001 - 1000000,
                 'tensor([-1000000,  -949999,  -899998,  -849997,  -799996,  -749995,  -699994,\n'
                 '         -649993,  -599992,  -549991,  -499990,  -449989,  -399988,  -349987,\n'
                 '         -299986,  -249985,  -199984,  -149983,   -99982,   -49981,       20,\n'
                 '           50021,   100022,   150023,   200024,   250025,   300026,   350027,\n'
                 '          400028,   450029,   500030,   550031,   600032,   650033,   700034,\n'
                 '          750035,   800036,   850037,   900038,   950039], dtype=numgrad.int32)',
                 id='wrap-dtype-suffix'),
    pytest.param(np.arange(12, dtype=np.int32),
                 'tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11], dtype=numgrad.int32)',
                 id='dtype-fits'),
    # torch measures "dtype=torch.int32": the suffix stays although this line is 81 characters
    pytest.param(np.arange(13, dtype=np.int32),
                 'tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12], dtype=numgrad.int32)',
                 id='dtype-fits-as-torch-spells-it'),
    pytest.param(np.arange(14, dtype=np.int32),
                 'tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13],\n'
                 '       dtype=numgrad.int32)', id='dtype-moves'),
    pytest.param(np.arange(32, dtype=np.int32),
                 'tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n'
                 '        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31],\n'
                 '       dtype=numgrad.int32)', id='dtype-moves-after-wrap'),
    pytest.param(np.arange(2000),
                 'tensor([   0,    1,    2,  ..., 1997, 1998, 1999])', id='summary-1d-int'),
    pytest.param(np.arange(2000, dtype=np.float32) * 1.5,
                 'tensor([0.0000e+00, 1.5000e+00, 3.0000e+00,  ..., 2.9955e+03, 2.9970e+03,\n'
                 '        2.9985e+03])', id='summary-1d-float'),
    pytest.param(np.arange(1001, dtype=np.int32),
                 'tensor([   0,    1,    2,  ...,  998,  999, 1000], dtype=numgrad.int32)',
                 id='summary-1d-just-over'),
    pytest.param(np.arange(1000, dtype=np.float32)[::100],
                 'tensor([  0., 100., 200., 300., 400., 500., 600., 700., 800., 900.])',
                 id='not-summarized-1000'),
    pytest.param(np.arange(2000, dtype=np.float32).reshape(40, 50),
                 'tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 4.7000e+01, 4.8000e+01,\n'
                 '         4.9000e+01],\n'
                 '        [5.0000e+01, 5.1000e+01, 5.2000e+01,  ..., 9.7000e+01, 9.8000e+01,\n'
                 '         9.9000e+01],\n'
                 '        [1.0000e+02, 1.0100e+02, 1.0200e+02,  ..., 1.4700e+02, 1.4800e+02,\n'
                 '         1.4900e+02],\n'
                 '        ...,\n'
                 '        [1.8500e+03, 1.8510e+03, 1.8520e+03,  ..., 1.8970e+03, 1.8980e+03,\n'
                 '         1.8990e+03],\n'
                 '        [1.9000e+03, 1.9010e+03, 1.9020e+03,  ..., 1.9470e+03, 1.9480e+03,\n'
                 '         1.9490e+03],\n'
                 '        [1.9500e+03, 1.9510e+03, 1.9520e+03,  ..., 1.9970e+03, 1.9980e+03,\n'
                 '         1.9990e+03]])', id='summary-2d'),
    pytest.param(np.arange(7000, dtype=np.float32).reshape(1000, 7),
                 'tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 4.0000e+00, 5.0000e+00,\n'
                 '         6.0000e+00],\n'
                 '        [7.0000e+00, 8.0000e+00, 9.0000e+00,  ..., 1.1000e+01, 1.2000e+01,\n'
                 '         1.3000e+01],\n'
                 '        [1.4000e+01, 1.5000e+01, 1.6000e+01,  ..., 1.8000e+01, 1.9000e+01,\n'
                 '         2.0000e+01],\n'
                 '        ...,\n'
                 '        [6.9790e+03, 6.9800e+03, 6.9810e+03,  ..., 6.9830e+03, 6.9840e+03,\n'
                 '         6.9850e+03],\n'
                 '        [6.9860e+03, 6.9870e+03, 6.9880e+03,  ..., 6.9900e+03, 6.9910e+03,\n'
                 '         6.9920e+03],\n'
                 '        [6.9930e+03, 6.9940e+03, 6.9950e+03,  ..., 6.9970e+03, 6.9980e+03,\n'
                 '         6.9990e+03]])', id='summary-2d-tall'),
    pytest.param(np.arange(7000, dtype=np.float32).reshape(7, 1000) / 7,
                 'tensor([[0.0000e+00, 1.4286e-01, 2.8571e-01,  ..., 1.4243e+02, 1.4257e+02,\n'
                 '         1.4271e+02],\n'
                 '        [1.4286e+02, 1.4300e+02, 1.4314e+02,  ..., 2.8529e+02, 2.8543e+02,\n'
                 '         2.8557e+02],\n'
                 '        [2.8571e+02, 2.8586e+02, 2.8600e+02,  ..., 4.2814e+02, 4.2829e+02,\n'
                 '         4.2843e+02],\n'
                 '        ...,\n'
                 '        [5.7143e+02, 5.7157e+02, 5.7171e+02,  ..., 7.1386e+02, 7.1400e+02,\n'
                 '         7.1414e+02],\n'
                 '        [7.1429e+02, 7.1443e+02, 7.1457e+02,  ..., 8.5671e+02, 8.5686e+02,\n'
                 '         8.5700e+02],\n'
                 '        [8.5714e+02, 8.5729e+02, 8.5743e+02,  ..., 9.9957e+02, 9.9971e+02,\n'
                 '         9.9986e+02]])', id='summary-2d-wide'),
    pytest.param(np.arange(1120).reshape(7, 2, 80),
                 'tensor([[[   0,    1,    2,  ...,   77,   78,   79],\n'
                 '         [  80,   81,   82,  ...,  157,  158,  159]],\n'
                 '\n'
                 '        [[ 160,  161,  162,  ...,  237,  238,  239],\n'
                 '         [ 240,  241,  242,  ...,  317,  318,  319]],\n'
                 '\n'
                 '        [[ 320,  321,  322,  ...,  397,  398,  399],\n'
                 '         [ 400,  401,  402,  ...,  477,  478,  479]],\n'
                 '\n'
                 '        ...,\n'
                 '\n'
                 '        [[ 640,  641,  642,  ...,  717,  718,  719],\n'
                 '         [ 720,  721,  722,  ...,  797,  798,  799]],\n'
                 '\n'
                 '        [[ 800,  801,  802,  ...,  877,  878,  879],\n'
                 '         [ 880,  881,  882,  ...,  957,  958,  959]],\n'
                 '\n'
                 '        [[ 960,  961,  962,  ..., 1037, 1038, 1039],\n'
                 '         [1040, 1041, 1042,  ..., 1117, 1118, 1119]]])',
                 id='summary-3d-first-dim'),
    pytest.param(np.arange(1120, dtype=np.float32).reshape(2, 7, 80) / 8,
                 'tensor([[[0.0000e+00, 1.2500e-01, 2.5000e-01,  ..., 9.6250e+00,\n'
                 '          9.7500e+00, 9.8750e+00],\n'
                 '         [1.0000e+01, 1.0125e+01, 1.0250e+01,  ..., 1.9625e+01,\n'
                 '          1.9750e+01, 1.9875e+01],\n'
                 '         [2.0000e+01, 2.0125e+01, 2.0250e+01,  ..., 2.9625e+01,\n'
                 '          2.9750e+01, 2.9875e+01],\n'
                 '         ...,\n'
                 '         [4.0000e+01, 4.0125e+01, 4.0250e+01,  ..., 4.9625e+01,\n'
                 '          4.9750e+01, 4.9875e+01],\n'
                 '         [5.0000e+01, 5.0125e+01, 5.0250e+01,  ..., 5.9625e+01,\n'
                 '          5.9750e+01, 5.9875e+01],\n'
                 '         [6.0000e+01, 6.0125e+01, 6.0250e+01,  ..., 6.9625e+01,\n'
                 '          6.9750e+01, 6.9875e+01]],\n'
                 '\n'
                 '        [[7.0000e+01, 7.0125e+01, 7.0250e+01,  ..., 7.9625e+01,\n'
                 '          7.9750e+01, 7.9875e+01],\n'
                 '         [8.0000e+01, 8.0125e+01, 8.0250e+01,  ..., 8.9625e+01,\n'
                 '          8.9750e+01, 8.9875e+01],\n'
                 '         [9.0000e+01, 9.0125e+01, 9.0250e+01,  ..., 9.9625e+01,\n'
                 '          9.9750e+01, 9.9875e+01],\n'
                 '         ...,\n'
                 '         [1.1000e+02, 1.1012e+02, 1.1025e+02,  ..., 1.1962e+02,\n'
                 '          1.1975e+02, 1.1988e+02],\n'
                 '         [1.2000e+02, 1.2012e+02, 1.2025e+02,  ..., 1.2962e+02,\n'
                 '          1.2975e+02, 1.2988e+02],\n'
                 '         [1.3000e+02, 1.3012e+02, 1.3025e+02,  ..., 1.3962e+02,\n'
                 '          1.3975e+02, 1.3988e+02]]])', id='summary-3d-middle-dim'),
    pytest.param(np.arange(1200).reshape(2, 3, 200),
                 'tensor([[[   0,    1,    2,  ...,  197,  198,  199],\n'
                 '         [ 200,  201,  202,  ...,  397,  398,  399],\n'
                 '         [ 400,  401,  402,  ...,  597,  598,  599]],\n'
                 '\n'
                 '        [[ 600,  601,  602,  ...,  797,  798,  799],\n'
                 '         [ 800,  801,  802,  ...,  997,  998,  999],\n'
                 '         [1000, 1001, 1002,  ..., 1197, 1198, 1199]]])',
                 id='summary-3d-rows-only'),
    pytest.param(np.arange(1050).reshape(7, 1, 1, 150),
                 'tensor([[[[   0,    1,    2,  ...,  147,  148,  149]]],\n'
                 '\n'
                 '\n'
                 '        [[[ 150,  151,  152,  ...,  297,  298,  299]]],\n'
                 '\n'
                 '\n'
                 '        [[[ 300,  301,  302,  ...,  447,  448,  449]]],\n'
                 '\n'
                 '\n'
                 '        ...,\n'
                 '\n'
                 '\n'
                 '        [[[ 600,  601,  602,  ...,  747,  748,  749]]],\n'
                 '\n'
                 '\n'
                 '        [[[ 750,  751,  752,  ...,  897,  898,  899]]],\n'
                 '\n'
                 '\n'
                 '        [[[ 900,  901,  902,  ..., 1047, 1048, 1049]]]])', id='summary-4d'),
    # only the items shown choose the notation: the 1e-9s are hidden in the "..."
    pytest.param(np.concatenate([np.ones(3), np.full(1000, 1e-9), np.ones(3)]).astype(np.float32),
                 'tensor([1., 1., 1.,  ..., 1., 1., 1.])', id='summary-notation-from-shown'),
    pytest.param(np.arange(2000) % 3 == 0,
                 'tensor([ True, False, False,  ..., False,  True, False])', id='summary-bool'),
])
def test_repr_as_torch(array, printed):
    assert repr(ng.tensor(array)) == printed
    assert str(ng.tensor(array)) == printed


@pytest.mark.parametrize("array, kind, printed", [
    pytest.param(np.array([0.5, 2.0], np.float32), 'leaf',
                 'tensor([0.5000, 2.0000], requires_grad=True)', id='requires-grad'),
    pytest.param(np.array([0.5, 2.0], np.float32), 'mul',
                 'tensor([1., 4.], grad_fn=<MulBackward0>)', id='grad-fn'),
    pytest.param(np.array(3.0, np.float32), 'mul',
                 'tensor(6., grad_fn=<MulBackward0>)', id='0d-grad-fn'),
    pytest.param(np.arange(3, dtype=np.float64) / 3, 'leaf',
                 'tensor([0.0000, 0.3333, 0.6667], dtype=numgrad.float64, requires_grad=True)',
                 id='float64-fits'),
    pytest.param(np.arange(6, dtype=np.float64) / 3, 'leaf',
                 'tensor([0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667], dtype=numgrad.float64,\n'
                 '       requires_grad=True)', id='float64-requires-grad-moves'),
    pytest.param(np.arange(7, dtype=np.float64) / 3, 'leaf',
                 'tensor([0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667, 2.0000],\n'
                 '       dtype=numgrad.float64, requires_grad=True)', id='float64-both-move'),
    pytest.param(np.arange(13, dtype=np.float64) / 3, 'leaf',
                 'tensor([0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667, 2.0000, 2.3333, 2.6667,\n'
                 '        3.0000, 3.3333, 3.6667, 4.0000], dtype=numgrad.float64,\n'
                 '       requires_grad=True)', id='wrapped-row-then-suffix'),
    pytest.param(np.arange(9, dtype=np.float32) / 3, 'mul',
                 'tensor([0.0000, 0.6667, 1.3333, 2.0000, 2.6667, 3.3333, 4.0000, 4.6667, 5.3333],\n'
                 '       grad_fn=<MulBackward0>)', id='grad-fn-moves'),
    pytest.param(np.zeros((0, 2), np.float64), 'leaf',
                 'tensor([], size=(0, 2), dtype=numgrad.float64, requires_grad=True)',
                 id='empty-requires-grad'),
    pytest.param(np.arange(2000, dtype=np.float32).reshape(2, 1000), 'mul',
                 'tensor([[0.0000e+00, 2.0000e+00, 4.0000e+00,  ..., 1.9940e+03, 1.9960e+03,\n'
                 '         1.9980e+03],\n'
                 '        [2.0000e+03, 2.0020e+03, 2.0040e+03,  ..., 3.9940e+03, 3.9960e+03,\n'
                 '         3.9980e+03]], grad_fn=<MulBackward0>)', id='summary-grad-fn'),
])
def test_autograd_suffixes_as_torch(array, kind, printed):
    t = ng.tensor(array, requires_grad=True)
    if kind == "mul":
        t = t * 2
    assert repr(t) == printed


@pytest.mark.parametrize("options, array, printed", [
    pytest.param({'precision': 2}, np.array([1.12345, 2.5], np.float32),
                 'tensor([1.12, 2.50])', id='precision-2'),
    pytest.param({'precision': 8}, np.array([1.12345, 1e-5], np.float64),
                 'tensor([1.12345000e+00, 1.00000000e-05], dtype=numgrad.float64)',
                 id='precision-8'),
    pytest.param({'precision': 0}, np.array([1.5, 2.25, -0.4], np.float32),
                 'tensor([ 2,  2, -0])', id='precision-0'),
    pytest.param({'threshold': 5}, np.arange(10),
                 'tensor([0, 1, 2,  ..., 7, 8, 9])', id='threshold'),
    pytest.param({'threshold': 5}, np.arange(60, dtype=np.float32).reshape(3, 4, 5) / 2,
                 'tensor([[[ 0.0000,  0.5000,  1.0000,  1.5000,  2.0000],\n'
                 '         [ 2.5000,  3.0000,  3.5000,  4.0000,  4.5000],\n'
                 '         [ 5.0000,  5.5000,  6.0000,  6.5000,  7.0000],\n'
                 '         [ 7.5000,  8.0000,  8.5000,  9.0000,  9.5000]],\n'
                 '\n'
                 '        [[10.0000, 10.5000, 11.0000, 11.5000, 12.0000],\n'
                 '         [12.5000, 13.0000, 13.5000, 14.0000, 14.5000],\n'
                 '         [15.0000, 15.5000, 16.0000, 16.5000, 17.0000],\n'
                 '         [17.5000, 18.0000, 18.5000, 19.0000, 19.5000]],\n'
                 '\n'
                 '        [[20.0000, 20.5000, 21.0000, 21.5000, 22.0000],\n'
                 '         [22.5000, 23.0000, 23.5000, 24.0000, 24.5000],\n'
                 '         [25.0000, 25.5000, 26.0000, 26.5000, 27.0000],\n'
                 '         [27.5000, 28.0000, 28.5000, 29.0000, 29.5000]]])', id='threshold-2d'),
    pytest.param({'threshold': 0}, np.array(2.5, np.float32),
                 'tensor(2.5000)', id='threshold-0d'),
    pytest.param({'edgeitems': 1, 'threshold': 5}, np.arange(60).reshape(3, 4, 5),
                 'tensor([[[ 0,  ...,  4],\n'
                 '         ...,\n'
                 '         [15,  ..., 19]],\n'
                 '\n'
                 '        ...,\n'
                 '\n'
                 '        [[40,  ..., 44],\n'
                 '         ...,\n'
                 '         [55,  ..., 59]]])', id='edgeitems-1'),
    pytest.param({'edgeitems': 0, 'threshold': 5}, np.arange(60, dtype=np.float32).reshape(3, 4, 5),
                 'tensor([...], size=(3, 4, 5))', id='edgeitems-0'),
    pytest.param({'edgeitems': 0, 'threshold': 5}, np.arange(10, dtype=np.int32),
                 'tensor([...], size=(10,), dtype=numgrad.int32)', id='edgeitems-0-1d'),
    pytest.param({'edgeitems': 0}, np.arange(3),
                 'tensor([0, 1, 2], size=(3,))', id='edgeitems-0-not-summarized'),
    pytest.param({'edgeitems': 0, 'threshold': 0}, np.array(1.5, np.float32),
                 'tensor(1.5000, size=())', id='edgeitems-0-0d'),
    pytest.param({'edgeitems': 0}, np.zeros((0, 2), np.float32),
                 'tensor([], size=(0, 2))', id='edgeitems-0-empty'),
    pytest.param({'linewidth': 40}, np.arange(12, dtype=np.float32) / 3,
                 'tensor([0.0000, 0.3333, 0.6667, 1.0000,\n'
                 '        1.3333, 1.6667, 2.0000, 2.3333,\n'
                 '        2.6667, 3.0000, 3.3333, 3.6667])', id='linewidth-40'),
    pytest.param({'linewidth': 40}, np.arange(12, dtype=np.float64).reshape(2, 6) / 3,
                 'tensor([[0.0000, 0.3333, 0.6667, 1.0000,\n'
                 '         1.3333, 1.6667],\n'
                 '        [2.0000, 2.3333, 2.6667, 3.0000,\n'
                 '         3.3333, 3.6667]],\n'
                 '       dtype=numgrad.float64)', id='linewidth-40-2d'),
    pytest.param({'linewidth': 10}, np.arange(4, dtype=np.float32) / 3,
                 'tensor([0.0000,\n'
                 '        0.3333,\n'
                 '        0.6667,\n'
                 '        1.0000])', id='linewidth-10'),
    pytest.param({'profile': 'short'}, np.arange(2000, dtype=np.float32) / 3,
                 'tensor([0.00e+00, 3.33e-01,  ..., 6.66e+02, 6.66e+02])', id='profile-short'),
    pytest.param({'profile': 'full', 'precision': 2}, np.array([1.12345, 2.5], np.float32),
                 'tensor([1.12, 2.50])', id='profile-full-precision'),
    pytest.param({'profile': 'nope'}, np.array([1.12345, 2.5], np.float32),
                 'tensor([1.1235, 2.5000])', id='profile-unknown-ignored'),
    pytest.param({'sci_mode': True}, np.array([1.5, 2.0], np.float32),
                 'tensor([1.5000e+00, 2.0000e+00])', id='sci-mode-on'),
    pytest.param({'sci_mode': True}, np.array([1.0, 20.0], np.float32),
                 'tensor([1.0000e+00, 2.0000e+01])', id='sci-mode-on-integral'),
    pytest.param({'sci_mode': True}, np.array([0.0, -0.0, math.nan], np.float32),
                 'tensor([0., -0., nan])', id='sci-mode-on-zeros'),
    pytest.param({'sci_mode': True}, np.array([1, 20]),
                 'tensor([ 1, 20])', id='sci-mode-on-int'),
    pytest.param({'sci_mode': False}, np.array([1e-5, 1e5], np.float32),
                 'tensor([     0.0000, 100000.0000])', id='sci-mode-off'),
])
def test_printoptions_as_torch(options, array, printed):
    ng.set_printoptions(**options)
    assert repr(ng.tensor(array)) == printed


def test_profile_full_prints_every_item():
    ng.set_printoptions(profile="full")
    lines = repr(ng.tensor(np.arange(1003))).split("\n")
    assert len(lines) == 84
    assert lines[0] == "tensor([   0,    1,    2,    3,    4,    5,    6,    7,    8,    9,   10,   11,"
    assert lines[-1] == "         996,  997,  998,  999, 1000, 1001, 1002])"


def test_printoptions_reset_sci_mode_and_default_profile():
    ng.set_printoptions(sci_mode=True, precision=2)
    assert repr(ng.tensor([1.5, 2.0])) == "tensor([1.50e+00, 2.00e+00])"
    ng.set_printoptions(precision=3)        # as torch: a call without sci_mode sets it back to None
    assert repr(ng.tensor([1.5, 2.0])) == "tensor([1.500, 2.000])"
    ng.set_printoptions(profile="default")
    assert repr(ng.tensor([1.12345, 2.0])) == "tensor([1.1235, 2.0000])"


@pytest.mark.parametrize("array, printed", [
    pytest.param(np.array([0.5, 2.0], np.float32),
                 'tensor([0.5000, 2.0000], dtype=numgrad.float32)', id='float32-named'),
    pytest.param(np.array([0.5, 2.0], np.float64),
                 'tensor([0.5000, 2.0000])', id='float64-unnamed'),
    pytest.param(np.zeros(0, np.float32),
                 'tensor([], dtype=numgrad.float32)', id='empty-float32'),
    pytest.param(np.zeros(0, np.float64),
                 'tensor([])', id='empty-float64'),
])
def test_dtype_named_against_default_float64(array, printed):
    ng.set_default_dtype(ng.float64)
    assert repr(ng.tensor(array)) == printed


def test_parameter():
    assert repr(ng.nn.Parameter(ng.ones(3))) == ("Parameter containing:\n"
                                                 "tensor([1., 1., 1.], requires_grad=True)")
    assert repr(ng.nn.Parameter(ng.tensor(np.arange(12, dtype=np.float64) / 3))) == (
        "Parameter containing:\n"
        "tensor([0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667, 2.0000, 2.3333, 2.6667,\n"
        "        3.0000, 3.3333, 3.6667], dtype=numgrad.float64, requires_grad=True)")


# torch on this machine has no GPU: these strings come from torch's own layout functions
# (_tensor_str, _add_suffixes) given the suffix torch puts first for a cuda:0 tensor.
@pytest.mark.parametrize("array, requires_grad, printed", [
    pytest.param(np.array([1.5, 2.0], np.float32), True,
                 "tensor([1.5000, 2.0000], device='cuda:0', requires_grad=True)", id='device'),
    pytest.param(np.arange(5, dtype=np.float64) / 3, False,
                 "tensor([0.0000, 0.3333, 0.6667, 1.0000, 1.3333], device='cuda:0',\n"
                 '       dtype=numgrad.float64)', id='device-then-dtype-moves'),
    pytest.param(np.arange(7, dtype=np.float64) / 3, False,
                 'tensor([0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667, 2.0000],\n'
                 "       device='cuda:0', dtype=numgrad.float64)", id='device-moves'),
    pytest.param(np.zeros((0, 2), np.int64), False,
                 "tensor([], device='cuda:0', size=(0, 2), dtype=numgrad.int64)",
                 id='device-empty'),
])
def test_device_suffix_as_torch(array, requires_grad, printed):
    assert repr(ng.tensor(array, device="cuda", requires_grad=requires_grad)) == printed
