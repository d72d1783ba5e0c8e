"""Replace line N (0-based) of DIR/contacts.txt by TEXT and compute the seal's checksum of the
model's lines again (64-bit FNV-1a, src/core/checksum.h), so that only the model's own checks can
refuse the forged line: reseal.py DIR N TEXT. rewrite() is the same for another edit
(forge_writer.py)."""
import re, sys


def rewrite(directory, edit):
    """edit(lines) changes the lines of DIR/contacts.txt before its seal; the seal follows."""
    path = directory + "/contacts.txt"
    lines = open(path, "rb").read().split(b"\n")[:-1]
    seal = lines.pop()
    edit(lines)
    body = b"".join(l + b"\n" for l in lines)
    h = 0xcbf29ce484222325
    for c in body:
        h = ((h ^ c) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    seal = re.sub(rb"contacts=[0-9a-f]{16}", b"contacts=%016x" % h, seal)
    open(path, "wb").write(body + seal + b"\n")


if __name__ == "__main__":
    rewrite(sys.argv[1], lambda lines: lines.__setitem__(int(sys.argv[2]), sys.argv[3].encode()))
