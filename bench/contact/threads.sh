#!/bin/sh
# Thread scaling of the contact model (issue 29): the Brownian case of scaling.py (2D, periodic,
# area fraction 0.2) at N = 1e4 and 1e5 on 1 and 2 threads, MPRGP, best of 3 runs taken in turn
# (1, 2, 1, 2, ... threads: this host's speed drifts by up to 1.5x over minutes); prints the rows,
# the speed-ups (of the best, and of each repeat's pair) and whether the states are
# byte-identical; then two 1-thread runs at once
# per N (--twin): how much the machine itself slows one copy of the work when both cores run,
# the ceiling of the 2-thread speed-up whatever the code does. About 4 minutes; wall times need
# a quiet machine (the load column says how quiet it was). Extra arguments go to scaling.py,
# e.g. --agglo build/agglo --out DIR --passive.
exec python3 "$(dirname "$0")/scaling.py" --case brownian --sizes 1e4,1e5 --threads 1,2 \
  --methods mprgp --repeat 3 --twin --out bench-contact-threads "$@"
