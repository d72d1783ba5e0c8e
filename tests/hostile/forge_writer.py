"""Forge a user writer's line into a text restart point: forge_writer.py DIR 'LINE'.
The line goes before the model's lines of DIR/contacts.txt (after the solver iterations line,
if any) and the seal's checksum of those lines is computed again (64-bit FNV-1a,
src/core/checksum.h), so that only the line's own checks can refuse it."""
import re, sys

path = sys.argv[1] + "/contacts.txt"
lines = open(path, "rb").read().split(b"\n")[:-1]
seal = lines.pop()
at = 1 if lines and lines[0].startswith(b"# run:") else 0
lines.insert(at, sys.argv[2].encode())
body = b"".join(l + b"\n" for l in lines)
h = 0xcbf29ce484222325
for c in body:
    h = ((h ^ c) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
seal = re.sub(rb"contacts=[0-9a-f]{16}", b"contacts=%016x" % h, seal)
open(path, "wb").write(body + seal + b"\n")
