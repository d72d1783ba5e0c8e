#!/usr/bin/env python3
"""Markdown tables from the per-run CSVs of validate.sh / dt_factor.sh (plain Python, no numpy).
usage: tables.py validation DIR   |   tables.py dt_factor DIR N VF"""
import csv, glob, math, os, sys

def load(path):
    runs = {"time_stepping": [], "event_driven": []}
    with open(path) as f:
        for row in csv.DictReader(f):
            runs[row["method"]].append({k: float(v) for k, v in row.items() if k not in ("method",)})
    return runs

def ms(v):
    m = sum(v) / len(v)
    s = math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1)) if len(v) > 1 else 0.0
    return m, s

def col(runs, meth, key):
    return [r[key] for r in runs[meth]]

def validation(d):
    print("| V_f | N | seeds | N_c TS | N_c ED | D_f TS | D_f ED | rel. diff D_f | A_r TS | A_r ED "
          "| t one cluster TS | t one cluster ED | CPU TS (s) | CPU ED (s) |")
    print("|" + "---|" * 14)
    for vf in ("0.1", "0.2", "0.3"):
        for n in (100, 400, 2500, 10000):
            p = os.path.join(d, f"n{n}_vf{vf}.csv")
            if not os.path.exists(p):
                continue
            r = load(p)
            ts = {k: ms(col(r, "time_stepping", k)) for k in ("nc", "df", "ar", "t_final", "cpu")}
            ed = {k: ms(col(r, "event_driven", k)) for k in ("nc", "df", "ar", "t_final", "cpu")}
            rel = abs(ts["df"][0] - ed["df"][0]) / ed["df"][0]
            f = lambda a, p=3: f"{a[0]:.{p}f} ± {a[1]:.{p}f}"
            g = lambda a: f"{a[0]:.3g} ± {a[1]:.2g}"
            print(f"| {vf} | {n} | {len(r['event_driven'])} | {f(ts['nc'])} | {f(ed['nc'])} | "
                  f"{f(ts['df'])} | {f(ed['df'])} | {100*rel:.2f}% | {f(ts['ar'],2)} | {f(ed['ar'],2)} | "
                  f"{g(ts['t_final'])} | {g(ed['t_final'])} | {g(ts['cpu'])} | {g(ed['cpu'])} |")

def pr(d):
    radii = None
    print("| V_f | N | method | " + " | ".join(f"P({x}r)" for x in (2.5, 4, 6, 10, 15, 20)) + " |")
    print("|" + "---|" * 9)
    for vf in ("0.1", "0.2", "0.3"):
        for n in (400, 2500, 10000):
            p = os.path.join(d, f"n{n}_vf{vf}.csv")
            if not os.path.exists(p):
                continue
            r = load(p)
            for meth, tag in (("time_stepping", "TS"), ("event_driven", "ED")):
                keys = [k for k in r[meth][0] if k.startswith("P")]
                vals = [ms(col(r, meth, k)) for k in keys]
                print(f"| {vf} | {n} | {tag} | " + " | ".join(f"{m:.2f} ± {s:.2f}" for m, s in vals) + " |")

def dt_factor(d, n, vf):
    print("| dt_factor | N_c TS | N_c ED | D_f TS | D_f ED | P(4r) TS | P(4r) ED | max overlap / r | CPU TS (s) | CPU ED (s) |")
    print("|" + "---|" * 10)
    for f in ("1", "0.5", "0.25", "0.1"):
        p = os.path.join(d, f"n{n}_vf{vf}_f{f}.csv")
        if not os.path.exists(p):
            continue
        r = load(p)
        a = lambda m, k: ms(col(r, m, k))
        print(f"| {f} | {a('time_stepping','nc')[0]:.4f} | {a('event_driven','nc')[0]:.4f} | "
              f"{a('time_stepping','df')[0]:.4f} | {a('event_driven','df')[0]:.4f} | "
              f"{a('time_stepping','P4')[0]:.3f} | {a('event_driven','P4')[0]:.3f} | "
              f"{max(col(r,'time_stepping','max_overlap')):.2g} | "
              f"{a('time_stepping','cpu')[0]:.3g} | {a('event_driven','cpu')[0]:.3g} |")

def dat(d, out):
    """Whitespace tables for gnuplot: OUT/indicators.dat and OUT/pr_<N>.dat."""
    with open(os.path.join(out, "indicators.dat"), "w") as f:
        f.write("# vf n nc_ts sd nc_ed sd df_ts sd df_ed sd ar_ts sd ar_ed sd\n")
        for vf in ("0.1", "0.2", "0.3"):
            for n in (100, 400, 2500, 10000):
                p = os.path.join(d, f"n{n}_vf{vf}.csv")
                if not os.path.exists(p):
                    continue
                r = load(p)
                v = []
                for k in ("nc", "df", "ar"):
                    for m in ("time_stepping", "event_driven"):
                        v += list(ms(col(r, m, k)))
                f.write(f"{vf} {n} " + " ".join(f"{x:.6g}" for x in v) + "\n")
            f.write("\n\n")
    for n in (400, 2500, 10000):
        with open(os.path.join(out, f"pr_{n}.dat"), "w") as f:
            f.write("# r/rmean P_ts sd P_ed sd, one block per V_f (0.1, 0.2, 0.3)\n")
            for vf in ("0.1", "0.2", "0.3"):
                p = os.path.join(d, f"n{n}_vf{vf}.csv")
                if not os.path.exists(p):
                    continue
                r = load(p)
                keys = [k for k in r["time_stepping"][0] if k.startswith("P")]
                for k in keys:
                    a, b = ms(col(r, "time_stepping", k)), ms(col(r, "event_driven", k))
                    f.write(f"{k[1:]} {a[0]:.6g} {a[1]:.6g} {b[0]:.6g} {b[1]:.6g}\n")
                f.write("\n\n")

if __name__ == "__main__":
    if sys.argv[1] == "dat":
        dat(sys.argv[2], sys.argv[3])
        sys.exit(0)
    if sys.argv[1] == "validation":
        validation(sys.argv[2]); print(); pr(sys.argv[2])
    else:
        dt_factor(sys.argv[2], sys.argv[3], sys.argv[4])
