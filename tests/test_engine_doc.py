"""docs/engine.md shows real output: run its Python blocks in one session and compare each with
the text block right after it."""
import contextlib
import io
import pathlib
import re
import warnings

from numgrad import tape

DOC = pathlib.Path(__file__).resolve().parent.parent / "docs" / "engine.md"


def blocks():
    """(code, expected output) for each ```python block followed directly by a ```text block."""
    fenced = re.findall(r"```(\w+)\n(.*?)```", DOC.read_text(), re.S)
    return [(code, out) for (kind, code), (next_kind, out) in zip(fenced, fenced[1:])
            if kind == "python" and next_kind == "text"]


def test_engine_doc_output_is_what_numgrad_prints():
    tape.close_segment(tape.current_segment())      # positions start at 0, as in the page
    namespace = {}
    pairs = blocks()
    assert len(pairs) == 14
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for code, expected in pairs:
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                exec(compile(code, str(DOC), "exec"), namespace)
            assert printed.getvalue() == expected, code
