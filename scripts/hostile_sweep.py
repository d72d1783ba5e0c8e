#!/usr/bin/env python3
"""The hostile sweep (issue 41): every numeric scenario key at 0, negative, tiny, huge and NaN,
each a short run of the model that reads the key, under a time limit, classified as

  refused  exit status 2 with a message before anything ran (bad input)
  clean    exit 0, no warning
  warned   exit 0 with a warning
  failed   exit 1 with a message (the run stopped: its dynamics, a guard)
  slow     still running at the limit (SIGTERM; "slow, kept on" if it outlived 2 s more: SIGKILL)
  crashed  a signal or another status, or a non-zero status without a message

Usage: scripts/hostile_sweep.py AGGLO [--keys k1,k2,...] [--limit SECONDS] [--table FILE]
The exit status is 1 when a run crashed (or, with --strict, when one was slow), else 0. The
table (markdown) lists every run; docs/reliability.md keeps the one of a full run."""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

VALUES = [("zero", "0"), ("negative", "-1"), ("tiny", "1e-300"), ("huge", "1e300"), ("nan", "nan")]
MODELS = ["contact", "ballistic", "dpd", "gluey", "dlca"]
# a short run of each model (small, a few steps)
BASE = {
    "contact": ["-s", "particles.n=50", "-s", "run.t_end=0.1"],
    "ballistic": ["-s", "run.model=ballistic", "-s", "particles.n=50", "-s", "ballistic.stop=t_end",
                  "-s", "run.t_end=0.2"],
    "dpd": ["-s", "run.model=dpd", "-s", "particles.n=50", "-s", "run.t_end=1"],  # shorter warns (temperature)
    "gluey": ["-s", "run.model=gluey", "-s", "particles.n=50", "-s", "run.t_end=0.1"],
    "dlca": ["-s", "run.model=dlca", "-s", "particles.n=50", "-s", "dlca.stop=t_end", "-s", "run.t_end=0.02"],
}
COMMON = ["-s", "output.snapshots=", "--quiet", "--threads", "1"]


def numeric_keys(agglo):
    out = subprocess.run([agglo, "list", "keys"], capture_output=True, text=True, check=True).stdout
    keys = []
    for line in out.splitlines():
        m = re.match(r"\| `([a-z_]+\.[a-z_0-9]+)` \| `[^`]*` \| ([^|]*) \|", line)
        if m and re.search(r">=|>|<=|any number", m.group(2)):
            keys.append(m.group(1))
    return keys


def run(agglo, args, limit, workdir):
    out = tempfile.mkdtemp(dir=workdir)
    t0 = time.monotonic()
    p = subprocess.Popen([agglo, "run", "-o", os.path.join(out, "o"), *args], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    slow = kept_on = False
    try:
        _, err = p.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        slow = True
        os.killpg(p.pid, signal.SIGTERM)
        try:
            _, err = p.communicate(timeout=2)
        except subprocess.TimeoutExpired:
            kept_on = True
            os.killpg(p.pid, signal.SIGKILL)
            _, err = p.communicate()
    shutil.rmtree(out, ignore_errors=True)
    secs = time.monotonic() - t0
    rc = p.returncode
    msg = (err or "").strip().splitlines()
    first = next((ln for ln in msg if not ln.startswith("agglo: warning")), msg[0] if msg else "")
    if slow:
        return ("slow, kept on" if kept_on else "slow"), secs, first
    if rc == 2 and msg:
        return "refused", secs, first
    if rc == 0:
        return ("warned" if any("warning" in ln for ln in msg) else "clean"), secs, first
    if rc == 1 and msg:
        return "failed", secs, first
    return f"crashed ({rc})", secs, first


def model_of(agglo, key):
    """The model that reads key: the contact model's check of a value away from the default names
    the models that use it when the contact model does not."""
    for probe in ("0.37", "3"):
        p = subprocess.run([agglo, "run", "--check", *BASE["contact"], "-s", f"{key}={probe}"],
                           capture_output=True, text=True)
        used = re.search(r"does not use it \(used by: ([a-z]+)", p.stderr)
        if used:
            return used.group(1)
    return "contact"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("agglo")
    ap.add_argument("--keys", help="comma-separated keys (default: every numeric key)")
    ap.add_argument("--limit", type=float, default=20)
    ap.add_argument("--table", help="write the markdown table here")
    ap.add_argument("--strict", action="store_true", help="a slow run fails the sweep too")
    a = ap.parse_args()
    keys = a.keys.split(",") if a.keys else numeric_keys(a.agglo)
    workdir = tempfile.mkdtemp(prefix="hostile_sweep_")
    rows, counts = [], {}
    try:
        for key in keys:
            model = model_of(a.agglo, key)
            for name, value in VALUES:
                verdict, secs, first = run(a.agglo, [*BASE[model], "-s", f"{key}={value}", *COMMON], a.limit, workdir)
                kind = verdict.split(" (")[0].split(",")[0]
                counts[kind] = counts.get(kind, 0) + 1
                rows.append((key, model, name, value, verdict, secs, first))
                print(f"{key:32s} {model:9s} {value:7s} {verdict:14s} {secs:6.2f} s  {first[:110]}", flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    summary = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
    print(f"{len(rows)} runs over {len(keys)} keys: {summary}")
    if a.table:
        with open(a.table, "w") as f:
            f.write(f"{len(rows)} runs over {len(keys)} keys, limit {a.limit:g} s: {summary}\n\n")
            f.write("| key | model | value | verdict | s | message (first line) |\n| --- | --- | --- | --- | --- | --- |\n")
            for key, model, name, value, verdict, secs, first in rows:
                f.write(f"| `{key}` | {model} | {value} | {verdict} | {secs:.1f} | {first[:140].replace('|', '/')} |\n")
    bad = counts.get("crashed", 0) + (counts.get("slow", 0) if a.strict else 0)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
