"""Every reader, one set of checks (issue 41): random corruptions of valid files (truncations,
shortened H5MD datasets, NaN, huge and tiny values, skewed or negative cells) of an extended XYZ
trajectory, an H5MD trajectory, a scenario and a restart point. Each command that reads them
either refuses, with a message and a status of 1 or 2 (never a signal, never a hang), or gives
exactly what `run` would:

- analyze and convert read every frame through one reader: they accept and refuse together;
  render (the last frame) accepts whatever they accept;
- when `run -s particles.from=F` accepts F, convert accepted it too, and the state the run starts
  from is convert's last frame (positions wrapped into the periodic box, radii, ids, bit for bit);
- what convert writes is finite, and analyze gives the same numbers from it as from F;
- a scenario `run --check` accepts runs, and the scenario.ini it writes gives the same run;
- a damaged restart point is refused, or resumes to the uninterrupted run's stats.csv.

Seeded, so a failure names a reproducible case; about 30 s on a loaded 2-core machine.
Run: AGGLO=build/agglo /usr/bin/python3 -m pytest -q tests/h5md/test_reader_property.py
"""
import json
import math
import os
import random
import shutil
import signal
import subprocess

import h5py
import numpy as np
import pytest

AGGLO = os.environ.get("AGGLO", "agglo")
RUN = ["-s", "particles.n=20", "-s", "output.snapshots=", "-s", "output.trajectory_interval=0.02",
       "-s", "run.t_end=0.1"]


def agglo(*args, timeout=60):
    p = subprocess.run([AGGLO, *map(str, args)], capture_output=True, text=True, timeout=timeout)
    assert p.returncode >= 0, f"agglo {' '.join(map(str, args))}: killed by signal {-p.returncode}"
    assert p.returncode in (0, 1, 2), f"agglo {args}: status {p.returncode}\n{p.stderr}"
    if p.returncode:
        assert p.stderr.startswith("agglo"), f"agglo {args}: refused without a message: {p.stderr!r}"
    return p


def frames(path):
    """The frames of an extended XYZ file: (comment line, {column: array})."""
    out, lines = [], open(path).read().splitlines()
    i = 0
    while i < len(lines):
        n, comment = int(lines[i]), lines[i + 1]
        props = comment.split("Properties=")[1].split()[0].split(":")
        rows = [ln.split() for ln in lines[i + 2:i + 2 + n]]
        cols, k = {}, 0
        for name, _, count in zip(props[0::3], props[1::3], props[2::3]):
            c = int(count)
            if name != "species":
                cols[name] = np.array([[float(r[k + q]) for q in range(c)] for r in rows])
            k += c
        out.append((comment, cols))
        i += n + 2
    return out


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    d = tmp_path_factory.mktemp("property")
    agglo("run", "-o", d / "run", "--quiet", *RUN)
    agglo("convert", d / "run" / "trajectory.xyz", d / "run.h5md")
    agglo("run", "-o", d / "whole", "--quiet", *RUN[:-2], "-s", "run.t_end=0.2")
    return d


def check_trajectory(d, f, tag):
    """The commands that read a trajectory, on f: the properties of the module's docstring."""
    an = agglo("analyze", f, "--json", "--overwrite", "-o", d / f"an_{tag}")
    conv = d / f"conv_{tag}.xyz"
    cv = agglo("convert", f, conv)
    rd = agglo("render", f, "-o", d / f"render_{tag}")
    fr = agglo("run", "-o", d / f"from_{tag}", "--overwrite", "--quiet", "-s", f"particles.from={f}",
               "-s", "run.t_end=0", "-s", "output.snapshots=", "-s", "particles.n=20")
    if an.returncode == 0 and "complete frames before it" in an.stderr:
        # a file cut inside a frame (a killed run): analyze takes the complete frames with a
        # warning, convert refuses (a part must not pass for the whole), both naming the cut
        cut = an.stderr.split("warning: ")[1].split("; analysed")[0]
        assert cv.returncode and cut in cv.stderr, f"{tag}: convert took a cut file: {cv.stderr}"
        return an, cv, fr
    assert (an.returncode == 0) == (cv.returncode == 0), \
        f"{tag}: analyze and convert disagree:\n{an.stderr}\n{cv.stderr}"
    if cv.returncode == 0:
        assert rd.returncode == 0, f"{tag}: convert took it, render refused: {rd.stderr}"
        conv_frames = frames(conv)
        for _, cols in conv_frames:
            for name, a in cols.items():
                assert np.all(np.isfinite(a)), f"{tag}: convert wrote a non-finite {name}"
        again = agglo("analyze", conv, "--json", "--overwrite", "-o", d / f"an2_{tag}")
        assert again.returncode == 0 and json.loads(again.stdout) == json.loads(an.stdout), \
            f"{tag}: analyze differs between the file and its conversion"
    if fr.returncode == 0 and cv.returncode and str(f).endswith(".h5md"):
        # H5MD is read at random: particles.from reads only the frame it takes (the last), which
        # must not be the one convert refused
        assert "frame 1:" in cv.stderr, f"{tag}: run took the frame convert refused: {cv.stderr}"
    elif fr.returncode == 0:
        assert cv.returncode == 0, f"{tag}: run took particles.from, convert refused: {cv.stderr}"
        _, last = frames(conv)[-1]
        _, start = frames(d / f"from_{tag}" / "state.xyz")[0]
        order = np.argsort(last["id"][:, 0])
        got = np.argsort(start["id"][:, 0])
        x = np.mod(last["pos"][order][:, :2], 2.0)  # the box: 2 x 2, periodic
        assert np.array_equal(start["pos"][got][:, :2], x), f"{tag}: the run starts elsewhere"
        assert np.array_equal(start["radius"][got], last["radius"][order]), f"{tag}: radii differ"
    return an, cv, fr


def test_trajectory_xyz(base):
    rng = random.Random(41)
    src = (base / "run" / "trajectory.xyz").read_text()
    lines = src.splitlines(keepends=True)
    last = max(i for i, ln in enumerate(lines) if ln.startswith("Lattice="))
    cases = {"valid": src}
    for k in range(3):  # truncations
        cut = rng.randrange(len(src))
        cases[f"cut{k}"] = src[:cut]
    for k, v in enumerate(["nan", "inf", "-inf", "1e308", "-1e308", "1e-300", "0", "-1"]):
        row = rng.randrange(last + 1, len(lines))
        fields = lines[row].split()
        col = rng.choice([1, 2, 10, 11])  # x, y, radius, mass
        fields[col] = v
        cases[f"value{k}_{v}_col{col}"] = "".join(lines[:row] + [" ".join(fields) + "\n"] + lines[row + 1:])
    head = lines[last]
    lattice = head.split('"')[1]
    for name, cell in [("skewed", "2 0.1 0 0 2 0 0 0 0.02"), ("negative", "-2 0 0 0 2 0 0 0 0.02"),
                       ("tiny", "1e-300 0 0 0 1e-300 0 0 0 1e-300"), ("nan", "nan 0 0 0 2 0 0 0 0.02"),
                       ("short", "2 0 0 0 2 0")]:
        cases[f"lattice_{name}"] = "".join(lines[:last] + [head.replace(lattice, cell)] + lines[last + 1:])
    cases["time_nan"] = "".join(lines[:last] + [head.replace("Time=", "Time=nan ", 1).replace(
        "Time=nan " + head.split("Time=")[1].split()[0], "Time=nan")] + lines[last + 1:])
    cases["line_dropped"] = "".join(lines[:last + 3] + lines[last + 4:])
    results = {}
    for tag, text in cases.items():
        f = base / f"{tag}.xyz"
        f.write_text(text)
        results[tag] = check_trajectory(base, f, tag)
    assert all(r.returncode == 0 for r in results["valid"]), "the valid file is refused"
    for tag in ("lattice_skewed", "lattice_negative", "lattice_tiny", "lattice_nan", "lattice_short",
                "time_nan", "value0_nan_col1", "value3_1e308_col2"):
        if tag in results:
            assert all(r.returncode != 0 for r in results[tag]), f"{tag}: accepted"


def shorten(ds, by):
    ds.resize(ds.shape[0] - by, axis=0)


H5_CORRUPTIONS = {
    "valid": lambda g: None,
    "time_short": lambda g: shorten(g["position/time"], 2),
    "step_short": lambda g: shorten(g["position/step"], 2),
    "cluster_short": lambda g: shorten(g["cluster/value"], 2),
    "velocity_short": lambda g: shorten(g["velocity/value"], 3),
    "position_nan": lambda g: g["position/value"].__setitem__((-1, 3, 0), np.nan),
    "position_huge": lambda g: g["position/value"].__setitem__((-1, 3, 1), 1e308),
    "position_first_nan": lambda g: g["position/value"].__setitem__((0, 5, 1), np.nan),
    "time_nan": lambda g: g["position/time"].__setitem__(-1, np.nan),
    "edge_nan": lambda g: g["box/edges/value"].__setitem__((-1, 0, 0), np.nan),
    "edge_negative": lambda g: g["box/edges/value"].__setitem__((-1, 1, 1), -2.0),
    "edge_skewed": lambda g: g["box/edges/value"].__setitem__((-1, 0, 1), 0.1),
    "edge_tiny": lambda g: g["box/edges/value"].__setitem__((-1, 0, 0), 1e-300),
    "radius_zero": lambda g: g["radius"].__setitem__(4, 0.0),
    "mass_nan": lambda g: g["mass"].__setitem__(4, np.nan),
}
H5_REFUSED = {"time_short", "step_short", "cluster_short", "velocity_short", "position_nan", "position_huge",
              "position_first_nan", "time_nan", "edge_nan", "edge_negative", "edge_skewed", "edge_tiny",
              "radius_zero", "mass_nan"}


@pytest.mark.parametrize("tag", sorted(H5_CORRUPTIONS))
def test_trajectory_h5md(base, tag):
    f = base / f"h5_{tag}.h5md"
    shutil.copy(base / "run.h5md", f)
    with h5py.File(f, "r+") as h:
        H5_CORRUPTIONS[tag](h["particles/trajectory"])
    an, cv, fr = check_trajectory(base, f, f"h5_{tag}")
    if tag in H5_REFUSED:
        assert an.returncode and cv.returncode, f"{tag}: analyze or convert accepted it"
    else:
        assert not an.returncode and not cv.returncode and not fr.returncode, f"{tag}: refused"


def test_h5md_cut_by_a_kill(base):
    """One row missing is a last frame cut by a killed write: its complete frames are analysed."""
    f = base / "h5_killed.h5md"
    shutil.copy(base / "run.h5md", f)
    with h5py.File(f, "r+") as h:
        shorten(h["particles/trajectory/cluster/value"], 1)
    an = agglo("analyze", f, "--json", "--overwrite", "-o", base / "an_killed")
    assert an.returncode == 0 and "incomplete" in an.stderr and json.loads(an.stdout)["time"] == 0.08


def test_scenario(base):
    rng = random.Random(4141)
    src = (base / "run" / "scenario.ini").read_text()
    lines = src.splitlines(keepends=True)
    keyed = [i for i, ln in enumerate(lines) if "=" in ln and not ln.lstrip().startswith("#")]
    cases = {"valid": src, "cut": src[:rng.randrange(len(src))]}
    for k, v in enumerate(["nan", "inf", "1e308", "-1", "0", "1e-300", "", "2,,3", "\x01", "0x10"]):
        i = rng.choice(keyed)
        key = lines[i].split("=")[0]
        cases[f"value{k}"] = "".join(lines[:i] + [f"{key}= {v}\n"] + lines[i + 1:])
    for tag, text in cases.items():
        s = base / f"{tag}.ini"
        s.write_text(text)
        chk = agglo("run", s, "--check", "-s", "run.t_end=0.04", "-s", "particles.n=20", timeout=20)
        try:
            r = agglo("run", s, "-o", base / f"sc_{tag}", "--overwrite", "--quiet", "-s", "run.t_end=0.04",
                      "-s", "particles.n=20", "-s", "output.snapshots=", timeout=20)
        except subprocess.TimeoutExpired:
            continue  # a scenario that is slow is not a reader's fault (the hostile sweep reports it)
        if chk.returncode:
            assert r.returncode, f"{tag}: --check refused, run accepted"
            continue
        if r.returncode:
            continue  # the run itself failed (its dynamics): a run's verdict, not the reader's
        again = agglo("run", base / f"sc_{tag}" / "scenario.ini", "-o", base / f"sc2_{tag}", "--overwrite",
                      "--quiet", timeout=20)
        assert again.returncode == 0, f"{tag}: the scenario.ini a run wrote is refused: {again.stderr}"
        assert (base / f"sc_{tag}" / "stats.csv").read_bytes() == (base / f"sc2_{tag}" / "stats.csv").read_bytes(), \
            f"{tag}: the written scenario.ini gives another run"


def test_restart_point(base):
    rng = random.Random(414141)
    agglo("run", "-o", base / "half", "--quiet", *RUN)
    whole = (base / "whole" / "stats.csv").read_bytes()
    cases = ["valid"] + [f"state{k}" for k in range(6)] + [f"contacts{k}" for k in range(3)]
    for tag in cases:
        d = base / f"rp_{tag}"
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(base / "half", d)
        name = "contacts.txt" if tag.startswith("contacts") else "state.xyz"
        text = (d / name).read_text()
        if tag != "valid":
            how = rng.choice(["cut", "value", "lattice"])
            if how == "cut":
                text = text[:rng.randrange(len(text))]
            elif how == "value" or name == "contacts.txt":
                fields = text.split(" ")
                k = rng.randrange(len(fields))
                fields[k] = rng.choice(["nan", "1e308", "-1", "1e-300", "0"])
                text = " ".join(fields)
            else:
                text = text.replace('Lattice="2 0 0', 'Lattice="2 0.1 0', 1)
            (d / name).write_text(text)
        before = {f: (d / f).read_bytes() for f in ("stats.csv", "state.xyz", "contacts.txt")}
        r = agglo("run", "--resume", d, "-s", "run.t_end=0.2", "--quiet")
        if r.returncode:
            after = {f: (d / f).read_bytes() for f in before}
            assert after == before, f"{tag}: a refused resume changed the directory"
        else:
            assert (d / "stats.csv").read_bytes() == whole, f"{tag}: resumed to another run"
        if tag == "valid":
            assert r.returncode == 0, r.stderr
