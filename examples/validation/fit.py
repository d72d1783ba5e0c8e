#!/usr/bin/env python3
"""fit.py FILE.dat N tmin tmax: least squares of log(N/n - 1) = alpha log t + c over [tmin, tmax]."""
import sys, math
path, N, t0, t1 = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
X = []; Y = []
for line in open(path):
    if line.startswith('#'): continue
    t, n = map(float, line.split()[:2])
    if t0 <= t <= t1 and N / n - 1 > 0:
        X.append(math.log(t)); Y.append(math.log(N / n - 1))
k = len(X); mx = sum(X)/k; my = sum(Y)/k
sxx = sum((x-mx)**2 for x in X); b = sum((x-mx)*(y-my) for x, y in zip(X, Y))/sxx; a = my - b*mx
res = sum((y-a-b*x)**2 for x, y in zip(X, Y)); se = math.sqrt(res/(k-2)/sxx)
rms = math.sqrt(res/k)
# N/n - 1 = (t/tc)^alpha -> tc = exp(-a/b)
print(f"{path}: t in [{t0},{t1}] ({k} pts): alpha = {b:.3f} +- {se:.3f}, t_c = {math.exp(-a/b):.4g}, rms log-residual {rms:.3f}")
