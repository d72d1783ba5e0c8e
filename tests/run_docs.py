"""Every documented command runs as written (CTest docs_commands, tests/docs.cmake).

Runs, against an installed agglo (PREFIX: bin/agglo, lib/, the Python package, agglo.pc):
  - README.md: the fenced blocks of its "## Use" section;
  - docs/*.md: every fenced block whose info string is sh, python or c;
in the order written, each file from an empty directory of its own. A block whose info string
goes on with "skip: WHY" (```sh skip: MPI over several machines) is not run; WHY is printed.
sh: each command (a line, with its backslash continuations) by bash, stopping at the first that
exits non-zero; python: the file's blocks in order in one interpreter; c: each block compiled
with pkg-config agglo and run. Exit status 1 when a command failed.

usage: run_docs.py PREFIX SOURCE_DIR WORK_DIR
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import time

TIMEOUT = 300  # seconds, one command
FENCE = re.compile(r"^```([a-z]+)([^\n]*)\n(.*?)^```\s*$", re.S | re.M)


def blocks(path, section=None):
    """(language, skip reason or None, first line number, text) of the fenced blocks."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines_before = 0
    if section:
        start = text.index(section + "\n")
        end = text.find("\n## ", start + 1)
        lines_before, text = text.count("\n", 0, start), text[start:end if end >= 0 else len(text)]
    for m in FENCE.finditer(text):
        lang, rest, body = m.group(1), m.group(2).strip(), m.group(3)
        if lang not in ("sh", "python", "c"):
            continue
        skip = rest[len("skip:"):].strip() if rest.startswith("skip:") else None
        if rest and skip is None or skip == "":
            raise SystemExit(f"{path}: block ```{lang} {rest}: after the language only "
                             "'skip: WHY' is allowed")
        line = lines_before + text.count("\n", 0, m.start(3)) + 1
        yield lang, skip, line, body


def commands(body, first_line):
    """(line number, command) of a sh block: backslash continuations joined, comments and blank
    lines left out."""
    pending, start = "", None
    for k, line in enumerate(body.split("\n")):
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if start is None:
            start = first_line + k
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        yield start, pending + line
        pending, start = "", None


def run(cmd, cwd, env, label, log):
    t0 = time.time()
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=TIMEOUT, shell=isinstance(cmd, str),
                           executable="/bin/bash" if isinstance(cmd, str) else None)
        out, rc = p.stdout.decode(errors="replace"), p.returncode
    except subprocess.TimeoutExpired as e:
        out, rc = (e.stdout or b"").decode(errors="replace") + f"\n(killed after {TIMEOUT} s)", -1
    log.write(f"$ {label}\n{out}\n")
    print(f"{'ok  ' if rc == 0 else 'FAIL'} {time.time() - t0:6.1f} s  {label}", flush=True)
    if rc != 0:
        print(f"     exit status {rc}; its last lines:\n" +
              "\n".join("     | " + l for l in out.rstrip().split("\n")[-15:]), flush=True)
    return rc == 0


def main():
    prefix, source, work = (os.path.abspath(a) for a in sys.argv[1:4])
    env = dict(os.environ)
    env["PATH"] = f"{prefix}/bin:" + env.get("PATH", "/usr/bin:/bin")
    env["LD_LIBRARY_PATH"] = f"{prefix}/lib"
    env["PKG_CONFIG_PATH"] = f"{prefix}/lib/pkgconfig"
    env["PYTHONPATH"] = ":".join(glob.glob(f"{prefix}/lib/python3*/dist-packages"))
    env.update(MPLBACKEND="Agg", PYTHONDONTWRITEBYTECODE="1")
    files = [("README.md", "## Use")] + [
        (os.path.relpath(p, source), None) for p in sorted(glob.glob(f"{source}/docs/*.md"))]
    shutil.rmtree(work, ignore_errors=True)
    ran = skipped = 0
    failed = []
    for name, section in files:
        todo = list(blocks(os.path.join(source, name), section))
        if not todo:
            continue
        cwd = os.path.join(work, name.replace("/", "_").replace(".md", ""))
        os.makedirs(cwd)
        with open(os.path.join(cwd, "commands.log"), "w", encoding="utf-8") as log:
            python = []
            for k, (lang, skip, line, body) in enumerate(todo):
                where = f"{name}:{line}"
                if skip:
                    print(f"skip        {where} ```{lang}: {skip}", flush=True)
                    skipped += 1
                    continue
                if lang == "python":
                    python.append(f"# {where}\n{body}")
                    continue
                if lang == "c":
                    src = os.path.join(cwd, f"block{k}.c")
                    with open(src, "w", encoding="utf-8") as f:
                        f.write(body)
                    ok = run(f"cc {src} -o block{k} $(pkg-config --cflags --libs agglo) && ./block{k}",
                             cwd, env, f"{where} (c block)", log)
                    ran += 1
                    if not ok:
                        failed.append(where)
                    continue
                for n, cmd in commands(body, line):
                    ran += 1
                    if not run(cmd, cwd, env, f"{name}:{n}: {cmd}", log):
                        failed.append(f"{name}:{n}")
                        break
                if failed and failed[-1].startswith(name + ":"):
                    break  # the later commands of this file need what this one did not make
            if python and not (failed and failed[-1].startswith(name + ":")):
                ran += 1
                if not run(["/usr/bin/python3", "-c", "\n".join(python)], cwd, env,
                           f"{name}: its {len(python)} python blocks", log):
                    failed.append(f"{name} (python)")
    print(f"docs: {ran} commands or blocks run, {skipped} blocks skipped, "
          f"{len(failed)} failed{': ' + ', '.join(failed) if failed else ''}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
