"""A cloud of N monomers of four radii in a ball of radius 30 (extended XYZ on stdout): one
cluster at contact distance 3, a structure factor's test case. cloud.py N"""
import random, sys

random.seed(1)
n = int(sys.argv[1])
print(n)
print("Properties=species:S:1:pos:R:3:radius:R:1 dim=3")
for i in range(n):
    while True:
        x = [random.uniform(-30, 30) for _ in range(3)]
        if sum(c * c for c in x) < 900:
            break
    print("X %.4f %.4f %.4f %.3f" % (x[0], x[1], x[2], 1 + 0.1 * (i % 4)))
