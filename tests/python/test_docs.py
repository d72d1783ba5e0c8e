"""Every ```python block of docs/python.md runs as written, in order and in one namespace, from
an empty directory (the examples come from agglo.examples, the outputs go to that directory)."""
import contextlib
import io
import os
import re

import pytest

from conftest import ROOT


def python_blocks(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return re.findall(r"^```python\n(.*?)^```$", text, flags=re.S | re.M)


def test_docs_python_md_runs_from_an_empty_directory(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    pytest.importorskip("ase")
    blocks = python_blocks(os.path.join(ROOT, "docs", "python.md"))
    assert len(blocks) >= 12
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "docs_python_md"}
    for k, block in enumerate(blocks):
        code = compile(block, f"docs/python.md block {k + 1}", "exec")
        with contextlib.redirect_stdout(io.StringIO()):
            exec(code, namespace)  # noqa: S102 (the documentation's own code)
    assert os.path.exists(tmp_path / "frame.png") and os.path.exists(tmp_path / "clusters.png")
