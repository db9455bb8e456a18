"""Import cost is start-up time every user pays: `import numgrad` loads no module it does not need
before the first op that uses it."""
import subprocess
import sys

# each costs 0.1-0.25 s of import; they load on first use (special functions, the GPU target)
DEFERRED = ("scipy.special", "numba.cuda", "matplotlib", "mpi4py")


def test_import_numgrad_defers_heavy_modules():
    script = ("import sys, numgrad\n"
              f"print(','.join(m for m in {DEFERRED!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
