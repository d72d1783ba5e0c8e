#!/usr/bin/env python3
"""Fit Rg = a s^(1/Df) to 'C t s rg span' lines on stdin (non-spanning, s in [smin, smax])."""
import sys, math
smin = float(sys.argv[1]); smax = float(sys.argv[2]) if len(sys.argv) > 2 else 1e18
X = []; Y = []
for line in sys.stdin:
    w = line.split()
    if w[0] != 'C' or w[4] == '1': continue
    s, rg = float(w[2]), float(w[3])
    if smin <= s <= smax: X.append(math.log(s)); Y.append(math.log(rg / 0.01))
n = len(X); mx = sum(X)/n; my = sum(Y)/n
sxx = sum((x-mx)**2 for x in X); sxy = sum((x-mx)*(y-my) for x, y in zip(X, Y))
b = sxy/sxx; a = my - b*mx
res = sum((y - a - b*x)**2 for x, y in zip(X, Y)); se = math.sqrt(res/(n-2)/sxx)
print(f"clusters {n}, s in [{math.exp(min(X)):.0f},{math.exp(max(X)):.0f}]: 1/Df = {b:.3f} +- {se:.3f}  "
      f"Df = {1/b:.2f} (+{1/(b-se)-1/b:.2f}/-{1/b-1/(b+se):.2f}), Rg/r = {math.exp(a):.3f} s^(1/Df)")
