"""Every Python example of the seed documents prints what the seed prints, with numgrad in place of
torch (tests/seeds/examples.py holds them, in the seeds' order)."""
import re
import subprocess
import sys
from pathlib import Path

EXPECTED = """\
values: 4.0 8.0 12.0 20.0
gradients: 5.0 20.0
shared node: True True
leaf edges: [('AccumulateGrad', 0), ('AccumulateGrad', 0)]
same leaf: True
VJP: [16.0, 8.0] x.grad: None
accumulated: 20.0
accumulated: 40.0
after reset: 20.0
reused graph: RuntimeError
modified saved input: RuntimeError
derivatives: 20.0 10.0
tensor(7.)
<AddBackward0 ...>
tensor(4.)
tensor(8.)
"""


def test_seed_examples_print_what_the_seeds_print():
    script = Path(__file__).parent / "seeds" / "examples.py"
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True,
                         timeout=300).stdout
    # a grad_fn prints with its address, as torch's does: <AddBackward0 object at 0x...>
    out = re.sub(r"<(\w+) object at 0x[0-9a-f]+>", r"<\1 ...>", out)
    assert out == EXPECTED


def test_demo_shows_the_shared_node_running_once_with_five(capsys):
    import numgrad as ng
    from numgrad import demo
    alive = ng.tensor(1.0, requires_grad=True) * 2      # a graph recorded before, still held
    demo.shared_intermediate()
    assert alive.grad_fn is not None
    out = capsys.readouterr().out
    # the seed's first-in first-out order, then torch's
    assert "u buffer=2, pending=1\nrun 3*u: 1\nu buffer=5, pending=0\nrun u: 5" in out
    assert "u buffer=3, pending=1\nrun 2*u: 1\nu buffer=5, pending=0\nrun u: 5" in out
    # u.retain_grad() hands u's node to Python when it runs, where .grad is stored: [hooks]
    assert "   1  MulBackward0 (u) [hooks]        2  (0, 0) (0, 0)" in out
    assert out.count("run u:") == 2 and "x.grad=20" in out      # once per backward
