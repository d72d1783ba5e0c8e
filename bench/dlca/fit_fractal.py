#!/usr/bin/python3
"""D_f and k_f of aggregates, N = k_f (R_g / a)^D_f, from `agglo analyze`'s clusters.csv files
(one per seed): a least-squares fit of log(R_g / a) = c + (1/D_f) log N over the clusters of at
least --min-size particles (N is exact and R_g scatters: the fit the other way round would bias
D_f low), k_f = exp(-c D_f); per seed and over all seeds pooled (docs/validation.md).
R_g is that of the particles' centres (docs/analysis.md); a the particles' radius. With
--df-fixed D, also k_f at D_f = D given (the geometric mean of N / (R_g/a)^D over the pooled
clusters): k_f and D_f of a fit are correlated, so this compares k_f with the literature's at its D_f.
usage: fit_fractal.py [--min-size S] [--radius a] [--df-fixed D] clusters.csv..."""
import csv, math, sys


def fit(points):
    """slope and intercept of y on x, least squares"""
    n = len(points)
    mx = sum(p[0] for p in points) / n
    my = sum(p[1] for p in points) / n
    sxx = sum((p[0] - mx) ** 2 for p in points)
    sxy = sum((p[0] - mx) * (p[1] - my) for p in points)
    b = sxy / sxx
    return b, my - b * mx


def dk(slope_intercept):
    """D_f and k_f from the fit of log(R_g / a) on log N"""
    df = 1 / slope_intercept[0]
    return df, math.exp(-slope_intercept[1] * df)


def main(argv):
    min_size, a, df_fixed, spheres, files = 10, 1.0, None, False, []
    it = iter(argv)
    for arg in it:
        if arg == "--min-size":
            min_size = int(next(it))
        elif arg == "--radius":
            a = float(next(it))
        elif arg == "--df-fixed":
            df_fixed = float(next(it))
        elif arg == "--spheres":
            spheres = True
        else:
            files.append(arg)
    pooled, per_seed = [], []
    for name in files:
        with open(name, newline="") as f:
            pts = [(math.log(float(r["size"])),
                    0.5 * math.log((float(r["rg"]) / a) ** 2 + (0.6 if spheres else 0.0)))
                   for r in csv.DictReader(f) if int(r["size"]) >= min_size and float(r["rg"]) > 0]
        pooled += pts
        if len(pts) >= 3 and max(p[0] for p in pts) - min(p[0] for p in pts) > math.log(3):
            per_seed.append(dk(fit(pts)))
    if len(pooled) < 3:
        sys.exit("fewer than 3 clusters of at least %d particles" % min_size)
    df, kf = dk(fit(pooled))
    print("pooled: %d clusters of %d to %d particles: D_f = %.3f, k_f = %.3f" % (
        len(pooled), round(math.exp(min(p[0] for p in pooled))),
        round(math.exp(max(p[0] for p in pooled))), df, kf))
    if df_fixed is not None:
        lk = sum(p[0] - df_fixed * p[1] for p in pooled) / len(pooled)
        print("pooled, D_f = %.3f fixed: k_f = %.3f" % (df_fixed, math.exp(lk)))
    if len(per_seed) >= 2:
        m = len(per_seed)
        d = [s[0] for s in per_seed]
        k = [s[1] for s in per_seed]
        md, mk = sum(d) / m, sum(k) / m
        sd = math.sqrt(sum((x - md) ** 2 for x in d) / (m - 1))
        sk = math.sqrt(sum((x - mk) ** 2 for x in k) / (m - 1))
        print("per seed (%d): D_f = %.3f +- %.3f (standard error; sd %.3f), k_f = %.3f +- %.3f" % (
            m, md, sd / math.sqrt(m), sd, mk, sk / math.sqrt(m)))


main(sys.argv[1:])
