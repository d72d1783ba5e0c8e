#!/usr/bin/python3
"""breakup_start.py IN.xyz OUT.xyz [EPS]: the start of the shear break-up examples (docs/dpd.md,
"Shear break-up"): the aggregate of `agglo aggregate` (one frame of extended XYZ) with its
positions drawn towards its centre of mass by the factor 1 - EPS (default 1e-3), so that every
contact of the construction (gap 0 to rounding, either sign) overlaps by EPS diameters: a
capillary bridge forms only at contact (gap <= 0, dpd.capillary_bridge = memory), and a contact
left at gap +1e-16 would start without its bridge. Every other column is copied as it is."""
import sys


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    src, dst = sys.argv[1], sys.argv[2]
    eps = float(sys.argv[3]) if len(sys.argv) == 4 else 1e-3
    if not 0 <= eps < 0.1:
        sys.exit(f"EPS = {eps}: allowed 0 <= EPS < 0.1")
    with open(src) as f:
        lines = f.read().splitlines()
    n = int(lines[0])
    if len(lines) < n + 2:
        sys.exit(f"{src}: {n} particles announced, {len(lines) - 2} lines")
    header = lines[1]
    if "Properties=species:S:1:pos:R:3" not in header or "pbc=" not in header:
        sys.exit(f"{src}: expected agglo aggregate's columns (species, pos first)")
    rows = [l.split() for l in lines[2:n + 2]]
    pos = [[float(r[k]) for k in (1, 2, 3)] for r in rows]
    # the aggregate is built away from the faces (agglo aggregate's box): no periodic image
    c = [sum(p[k] for p in pos) / n for k in range(3)]
    out = [str(n), header]
    for r, p in zip(rows, pos):
        q = [repr(c[k] + (1 - eps) * (p[k] - c[k])) for k in range(3)]
        out.append(" ".join([r[0]] + q + r[4:]))
    with open(dst, "w") as f:
        f.write("\n".join(out) + "\n")


main()
