"""Settings from Python: keys, values, files, and the library's messages in the exceptions."""
import os

import pytest

import agglo


def test_version_and_threads():
    assert agglo.__version__.count(".") == 2
    agglo.set_threads(1)
    agglo.set_threads(0)
    with pytest.raises(agglo.InputError, match="threads"):
        agglo.set_threads(-1)


def test_bad_key(examples):
    c = agglo.Config()
    with pytest.raises(agglo.InputError, match=r"unknown key 'dtx' in section \[run\]"):
        c.set("run.dtx", 0.1)
    with pytest.raises(agglo.InputError, match=r"unknown section \[nosuch\]"):
        c["nosuch.key"] = 1
    with pytest.raises(ValueError, match="run.nope"):  # InputError is a ValueError
        agglo.Simulation.from_file(examples("maury_brownian_500.ini"), overrides={"run.nope": 1})
    with pytest.raises(KeyError):  # dict-like reading of an unknown key
        c["run.dtx"]
    assert c.get("run.dtx", None) is None
    assert "run.dt" in c and "run.dtx" not in c


def test_bad_value_names_key_and_range(examples):
    with pytest.raises(agglo.InputError) as e:
        agglo.Simulation.from_file(examples("maury_brownian_500.ini"), overrides={"run.dt": -1})
    assert "run.dt" in str(e.value) and "allowed: > 0" in str(e.value)
    with pytest.raises(agglo.InputError,
                       match=r"run.dim = 4 is out of range \(allowed: >= 2 and <= 3"):
        agglo.Config({"run.dim": 4})
    with pytest.raises(agglo.InputError,
                       match=r"run.model = 'nosuch' is not allowed \(allowed: one of"):
        agglo.Config().set("run.model", "nosuch")
    assert e.value.status == -1 and e.value.message == str(e.value)


def test_bad_file_and_file_line(tmp_path, examples):
    missing = tmp_path / "missing.ini"
    with pytest.raises(agglo.InputError, match="missing.ini"):
        agglo.Simulation.from_file(missing)
    bad = tmp_path / "bad.ini"
    bad.write_text("[run]\nmodel = contact\ndt = -0.5\n")
    with pytest.raises(agglo.InputError) as e:
        agglo.Config.from_file(bad)
    assert f"{bad}:3" in str(e.value) and "run.dt" in str(e.value)
    with pytest.raises(agglo.InputError, match=r"my.ini:2: .*particles.n"):
        agglo.Config.from_string("[particles]\nn = -3\n", "my.ini")


def test_check_across_keys():
    c = agglo.Config({"run.dim": 2, "box.size": [1, 2, 3]})
    with pytest.raises(agglo.InputError, match="box.size has 3 values"):
        c.check()
    with pytest.raises(agglo.InputError, match="box.size has 3 values"):
        agglo.Simulation.from_config(c)


def test_dict_like_and_round_trip(tmp_path):
    c = agglo.Config.default()
    assert len(c) == len(agglo.config_keys()) == len(list(c)) > 50
    assert c["run.model"] == "contact" and c["particles.n"] == "2000"
    c.update({"run.dt": 0.01, "box.boundary": ["wall", "periodic"], "run.seed": 7},
             run__t_end=1.5)
    c.update(["particles.n=300"])
    assert c["run.dt"] == "0.01" and c["run.t_end"] == "1.5" and c["particles.n"] == "300"
    assert c["box.boundary"] == "wall periodic"
    c["box.size"] = (2.5, 1)
    assert c["box.size"] == "2.5, 1"
    c["gluey.gamma_min"] = float("-inf")
    assert float(c["gluey.gamma_min"]) == float("-inf")
    d = c.copy()
    d["run.dt"] = 0.02
    assert c["run.dt"] == "0.01"  # copies are independent
    path = tmp_path / "s.ini"
    c.save(path)
    again = agglo.Config.from_file(path)
    assert again.to_dict() == c.to_dict()
    assert "[run]" in c.to_ini() and "dt = 0.01" in c.to_ini()
    info = {k.key: k for k in agglo.config_keys()}
    assert info["run.dt"].allowed == "> 0" and info["run.model"].default == "contact"


def test_save_to_bad_path_is_output_error(tmp_path):
    with pytest.raises(agglo.OutputError) as e:
        agglo.Config().save(tmp_path / "no" / "such" / "dir" / "s.ini")
    assert isinstance(e.value, OSError) and "cannot write" in str(e.value)


def test_summary_is_text():
    c = agglo.Config({"run.model": "dpd", "run.dim": 3})
    assert isinstance(c.summary(), str)
    assert os.fspath(agglo.library_path)


def test_cdef_drops_preprocessor_lines_and_cplusplus_blocks():
    from agglo._ffi import cdef_from_header
    text = ("#ifndef X_H\n#define X_H \\\n  1\n#include <stdio.h>\n#ifdef __cplusplus\n"
            "extern \"C\" {\n#if 1\n#endif\n#endif\nint f(int a); /* # not a directive */\n"
            "#ifdef __cplusplus\n}\n#endif\n#endif\n")
    assert cdef_from_header(text).split() == "int f(int a); /* # not a directive */".split()


def test_library_override_and_missing_library(tmp_path):
    import subprocess
    import sys
    env = dict(os.environ, AGGLO_LIBRARY=str(tmp_path / "libnothere.so"))
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    r = subprocess.run([sys.executable, "-c", "import agglo"], env=env, capture_output=True,
                       text=True)
    assert r.returncode != 0
    assert "ImportError" in r.stderr and "libnothere.so" in r.stderr and "AGGLO_LIBRARY" in r.stderr
