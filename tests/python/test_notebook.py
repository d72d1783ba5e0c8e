"""examples/python/agglo_tour.ipynb and aggregates.ipynb executed with nbclient on a kernel of this
interpreter (so they import the agglo under test): a cell's output holds the simulation's
rendered picture; the aggregate has its prescribed R_g and is restructured and scattered."""
import base64
import json
import os
import re
import sys

import pytest

from conftest import ROOT


def execute(name, tmp_path, monkeypatch):
    """The notebook examples/python/NAME executed in tmp_path; its code cells' outputs."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    pytest.importorskip("agglo")
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
    nb = nbformat.read(os.path.join(ROOT, "examples", "python", name), as_version=4)
    monkeypatch.chdir(tmp_path)
    nbclient.NotebookClient(nb, kernel_name="agglo-test", timeout=120,
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    return [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]


def test_notebook_runs_and_shows_a_picture(tmp_path, monkeypatch):
    agglo = pytest.importorskip("agglo")
    outputs = execute("agglo_tour.ipynb", tmp_path, monkeypatch)
    assert not [o for o in outputs if o.output_type == "error"]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert text.startswith("done 1.0")
    pngs = [o["data"]["image/png"] for o in outputs if "image/png" in o.get("data", {})]
    assert len(pngs) == 1
    rgb = agglo.picture.to_array(base64.b64decode(pngs[0]))
    assert rgb.shape[1] == 400 and len({tuple(p) for p in rgb.reshape(-1, 3)[::97]}) > 3


def test_aggregates_notebook(tmp_path, monkeypatch):
    """Generates (R_g as prescribed), restructures by contact dynamics from the written file
    (one cluster of 150 after), and gives S(q), mobility and optics lines for both."""
    outputs = execute("aggregates.ipynb", tmp_path, monkeypatch)
    assert not [o for o in outputs if o.output_type == "error"]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    rg, target = re.search(r"150 monomers, R_g ([0-9.]+) \(prescribed ([0-9.]+)\)", text).groups()
    assert rg == target
    assert re.search(r"done t = 20, clusters 1, the largest of 150", text)
    for when in ("before", "after"):
        assert re.search(when + r" +R_g +[0-9.]+ +Guinier R_g +[0-9.]+ +box-counting D 1\.[0-9]+ +slope", text)
        assert re.search(when + r" +d_m continuum [0-9.]+, .*C_abs [0-9.]+, C_sca [0-9.]+, G 0\.[0-9]+", text)
    assert text.rstrip().endswith("done")
    assert (tmp_path / "aggregate.xyz").exists()
