"""examples/python/agglo_tour.ipynb executed with nbclient on a kernel of this interpreter (so it
imports the agglo under test); a cell's output holds the simulation's rendered picture."""
import base64
import json
import os
import sys

import pytest

from conftest import ROOT


def test_notebook_runs_and_shows_a_picture(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    agglo = pytest.importorskip("agglo")
    # a kernel spec of this interpreter, found first (Debian's python3 spec is /usr/bin/python3,
    # which would not see a virtual environment's agglo)
    spec = tmp_path / "jupyter" / "kernels" / "agglo-test"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "agglo test", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    monkeypatch.delenv("MPLBACKEND", raising=False)
    nb = nbformat.read(os.path.join(ROOT, "examples", "python", "agglo_tour.ipynb"), as_version=4)
    monkeypatch.chdir(tmp_path)
    nbclient.NotebookClient(nb, kernel_name="agglo-test", timeout=120,
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert text.startswith("done 1.0")
    pngs = [o["data"]["image/png"] for o in outputs if "image/png" in o.get("data", {})]
    assert len(pngs) == 1
    rgb = agglo.picture.to_array(base64.b64decode(pngs[0]))
    assert rgb.shape[1] == 400 and len({tuple(p) for p in rgb.reshape(-1, 3)[::97]}) > 3
