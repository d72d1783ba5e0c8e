"""Forge a user writer's line into a text restart point: forge_writer.py DIR 'LINE'.
The line goes before the model's lines of DIR/contacts.txt (after the solver iterations line,
if any) and the seal's checksum is computed again (reseal.py), so that only the line's own
checks can refuse it."""
import sys

from reseal import rewrite  # (this script's folder is on the path)


def insert(lines):
    lines.insert(1 if lines and lines[0].startswith(b"# run:") else 0, sys.argv[2].encode())


rewrite(sys.argv[1], insert)
