"""autograd.graph.lower and viz.draw: the lowered backward graph as exact tables and DOT text.

Positions are the lowered graph's own; each test starts a fresh tape segment so they begin at 0.
Expected pending counts are derived by hand: one per edge from a needed node, with multiplicity.
"""
import shutil

import pytest

import numgrad as ng
from numgrad import tape, viz
from numgrad.autograd import graph


@pytest.fixture(autouse=True)
def fresh_segment():
    tape.close_segment(tape.current_segment())


def test_x_times_x_counts_both_edges_to_the_leaf():
    x = ng.tensor(2., requires_grad=True)
    g = graph.lower(x * x)
    assert str(g) == """\
backward graph: 2 of 2 recorded nodes, 2 edges, roots (1, 0)
node  name            pending  next_functions (node, input_nr)
   1  MulBackward0          0  (0, 0) (0, 0)
   0  AccumulateGrad        2
gradient buffers, one per (node, output):
slot  node  output  shape  size  workspace     offset
   1     1       0  ()        1  float32            0
   0     0       0  ()        1  leaf float32       0"""
    assert g.to_dot() == """\
digraph backward {
  node [shape=box, style=filled, fillcolor=white, fontname="Helvetica"];
  n1 [label="MulBackward0\\n#1 pending=0", fillcolor=darkolivegreen1];
  n0 [label="AccumulateGrad\\n#0 pending=2", fillcolor=lightblue];
  n1 -> n0 [label="0"];
  n1 -> n0 [label="0"];
}
"""


def test_diamond_with_names():
    x = ng.tensor(3., requires_grad=True)
    a, b = x.sin(), x.cos()
    y = a * b
    g = graph.lower(y, names=dict(x=x, a=a, b=b, y=y))
    assert str(g) == """\
backward graph: 4 of 4 recorded nodes, 4 edges, roots (3, 0)
node  name                pending  next_functions (node, input_nr)
   3  MulBackward0 (y)          0  (1, 0) (2, 0)
   2  CosBackward0 (b)          1  (0, 0)
   1  SinBackward0 (a)          1  (0, 0)
   0  AccumulateGrad (x)        2
gradient buffers, one per (node, output):
slot  node  output  shape  size  workspace     offset
   3     3       0  ()        1  float32            2
   2     2       0  ()        1  float32            1
   1     1       0  ()        1  float32            0
   0     0       0  ()        1  leaf float32       0"""
    assert g.nodes == [(3, "MulBackward0"), (2, "CosBackward0"), (1, "SinBackward0"),
                       (0, "AccumulateGrad")]
    assert g.edges == [(3, 1, 0), (3, 2, 0), (2, 0, 0), (1, 0, 0)]
    assert g.pending == {3: 0, 2: 1, 1: 1, 0: 2}


def test_fan_out_of_a_vector_and_a_constant_operand():
    x = ng.tensor([1., 2.], requires_grad=True)
    s = x.exp()
    y = (s + s * 2 + s.sin()).sum()
    g = graph.lower(y)
    # exp feeds three consumers: pending 3; the constant 2 has no edge (None)
    assert str(g) == """\
backward graph: 7 of 7 recorded nodes, 8 edges, roots (6, 0)
node  name            pending  next_functions (node, input_nr)
   6  SumBackward0          0  (5, 0)
   5  AddBackward0          1  (3, 0) (4, 0)
   4  SinBackward0          1  (1, 0)
   3  AddBackward0          1  (1, 0) (2, 0)
   2  MulBackward0          1  (1, 0) None
   1  ExpBackward0          3  (0, 0)
   0  AccumulateGrad        1
gradient buffers, one per (node, output):
slot  node  output  shape  size  workspace     offset
   6     6       0  ()        1  float32           10
   5     5       0  (2,)      2  float32            8
   4     4       0  (2,)      2  float32            6
   3     3       0  (2,)      2  float32            4
   2     2       0  (2,)      2  float32            2
   1     1       0  (2,)      2  float32            0
   0     0       0  (2,)      2  leaf float32       0"""
    assert g.buffers[0] == (6, 6, 0, 1, "float32", 10)


def test_unused_branch_is_not_needed_and_not_counted():
    x = ng.tensor(2., requires_grad=True)
    w = ng.tensor(5., requires_grad=True)
    used = x * 2
    x * w                                   # recorded on the tape, but not behind `used`
    g = graph.lower(used, names=dict(x=x, w=w))
    # x's accumulator waits for one edge, not two: the unused product is not needed
    assert str(g) == """\
backward graph: 2 of 4 recorded nodes, 1 edge, roots (1, 0)
node  name                pending  next_functions (node, input_nr)
   1  MulBackward0              0  (0, 0) None
   0  AccumulateGrad (x)        1
gradient buffers, one per (node, output):
slot  node  output  shape  size  workspace     offset
   1     1       0  ()        1  float32            0
   0     0       0  ()        1  leaf float32       0"""


def test_inputs_prune_an_edge():
    x = ng.tensor(2., requires_grad=True)
    w = ng.tensor(5., requires_grad=True)
    g = graph.lower(x * w, inputs=[x], names=dict(x=x, w=w))
    assert str(g).splitlines()[:4] == [
        "backward graph: 2 of 3 recorded nodes, 1 edge, roots (2, 0)",
        "node  name                pending  next_functions (node, input_nr)",
        "   2  MulBackward0              0  (0, 0) (1, 0) pruned",
        "   0  AccumulateGrad (x)        1"]


def test_two_roots_one_behind_the_other():
    x = ng.tensor(2., requires_grad=True)
    u = x.exp()
    v = u * 3
    g = graph.lower([v, u], names=dict(x=x, u=u, v=v))
    assert str(g) == """\
backward graph: 3 of 3 recorded nodes, 2 edges, roots (2, 0) (1, 0)
node  name                pending  next_functions (node, input_nr)
   2  MulBackward0 (v)          0  (1, 0) None
   1  ExpBackward0 (u)          1  (0, 0)
   0  AccumulateGrad (x)        1
gradient buffers, one per (node, output):
slot  node  output  shape  size  workspace     offset
   2     2       0  ()        1  float32            1
   1     1       0  ()        1  float32            0
   0     0       0  ()        1  leaf float32       0"""
    assert g.to_dot() == """\
digraph backward {
  node [shape=box, style=filled, fillcolor=white, fontname="Helvetica"];
  n2 [label="v\\nMulBackward0\\n#2 pending=0", fillcolor=darkolivegreen1];
  n1 [label="u\\nExpBackward0\\n#1 pending=1", fillcolor=darkolivegreen1];
  n0 [label="x\\nAccumulateGrad\\n#0 pending=1", fillcolor=lightblue];
  n2 -> n1 [label="0"];
  n1 -> n0 [label="0"];
}
"""


def test_lowering_runs_and_releases_nothing():
    x = ng.tensor(2., requires_grad=True)
    y = x * x
    graph.lower(y)
    graph.lower(y)
    assert x.grad is None
    y.backward()                             # saved values are still there
    assert x.grad.item() == 4.0
    assert "MulBackward0 [released]" in str(graph.lower(y))


def test_draw_gives_the_dot_text_and_renders_only_with_graphviz(tmp_path):
    x = ng.tensor(2., requires_grad=True)
    y = x * x
    assert viz.draw(y) == graph.lower(y).to_dot()
    if shutil.which("dot") is None:
        with pytest.raises(RuntimeError, match="'dot' program was not found"):
            viz.draw(y, tmp_path / "g.svg")
        pytest.skip("Graphviz's dot is not installed")
    viz.draw(y, tmp_path / "g.svg")
    assert (tmp_path / "g.svg").read_text().lstrip().startswith("<?xml")
