"""The confinement trampoline on its own (core/confine.py), under both the figure child and
TeX: a confined command gets only what its policy names, whatever it tries."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

from canary import CANARY, SECRET_KEY
from labwright.core import confine

PROBE = r"""
import json, os, socket, sys
data, out, outside, port = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
seen = {}
def attempt(name, fn):
    try:
        seen[name] = repr(fn())[:200]
    except Exception as e:
        seen[name] = "refused: " + type(e).__name__
attempt("read_data", lambda: open(os.path.join(data, "a.csv")).read())
attempt("read_outside", lambda: open(outside).read())
attempt("read_parent_environ", lambda: open(f"/proc/{os.getppid()}/environ", "rb").read())
attempt("write_data", lambda: open(os.path.join(data, "planted.txt"), "w").write("x"))
attempt("write_out", lambda: open(os.path.join(out, "ok.txt"), "w").write("x"))
attempt("fifo_in_out", lambda: os.mkfifo(os.path.join(out, "trap")))
attempt("link_in_out", lambda: os.symlink(outside, os.path.join(out, "trap-link")))
attempt("socket_in_out", lambda: socket.socket(socket.AF_UNIX).bind(os.path.join(out, "s")))
attempt("tcp", lambda: socket.create_connection(("127.0.0.1", port), timeout=2).close())
attempt("signal_parent", lambda: os.kill(os.getppid(), 0))
print(json.dumps(seen))
"""


def test_a_confined_command_gets_only_its_policy(tmp_path, outside_canary, guarded_folder):
    assert confine.support().fs and confine.support().namespaces, confine.support().describe()
    data = tmp_path / "data"
    data.mkdir()
    (data / "a.csv").write_text("1,2\n")
    guarded_folder(data)
    out = tmp_path / "out"
    out.mkdir()
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    env = {"PATH": os.defpath, "LABWRIGHT_API_KEY": SECRET_KEY}
    pol = confine.policy([data], [out])
    cmd = confine.wrap(
        [sys.executable, "-I", "-c", PROBE, str(data), str(out), str(outside_canary), str(port)],
        pol,
    )
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
    finally:
        listener.close()
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["read_data"] == repr("1,2\n") and seen["write_out"] == "1"
    # the out folder takes files and folders, never a FIFO, link or socket (a trap for the
    # parent that reads it back)
    refused = ("fifo_in_out", "link_in_out", "socket_in_out")
    for name in (
        "read_outside",
        "read_parent_environ",
        "write_data",
        "tcp",
        "signal_parent",
        *refused,
    ):
        assert seen[name].startswith("refused"), (name, seen[name])
    assert CANARY not in done.stdout and SECRET_KEY not in done.stdout
    assert not (data / "planted.txt").exists()
    assert (out / "ok.txt").read_text() == "x"


def test_a_trampoline_whose_parent_is_gone_starts_nothing(tmp_path):
    """Labwright killed between fork and PR_SET_PDEATHSIG: nobody would kill the child
    later, so the trampoline must not start the command at all."""
    marker = tmp_path / "ran"
    pol = confine.Policy(read=(), write=(), landlock=True, namespaces=True, seccomp=False)
    bad = json.dumps({**json.loads(pol.to_json()), "parent": -1})  # a parent that is not ours
    script = str(Path(confine.__file__).resolve())
    done = subprocess.run(
        [
            sys.executable,
            "-I",
            "-S",
            script,
            bad,
            "--",
            sys.executable,
            "-c",
            f"open({str(marker)!r}, 'w')",
        ],
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == confine.EXIT_CONFINE_FAILED
    assert not marker.exists()
