"""The escape corpus: every payload must fail with no effect outside the sandbox.

Each payload runs in its own test, twice when the static check refuses it:
``full`` is the real run_figure (both layers); ``layer2`` switches the static
check off to prove that the isolated child and its audit hook hold on their own.
Every test checks effects, not messages: canary secrets never show up in the
result or the figures, marker files are never created, the loopback listener is
never contacted, the data folder and the outside folder are unchanged, no
sandbox process survives and the temporary work dir is gone.
"""

from __future__ import annotations

import os
import pickle
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from labwright.core.sandbox import FigureResult, check_code, run_figure
from labwright.core.sandbox import runner as sandbox_runner

CAP_BYTES = sandbox_runner.MAX_FILE_MB * 1024 * 1024
PASSWD_MARKERS = (":x:0:0:", "/bin/bash", "/usr/sbin/nologin", "daemon:")


@dataclass
class Scene:
    """The world around one sandbox run, with canaries planted where code must not reach."""

    root: Path
    data: Path
    figures: Path
    outside: Path
    secret: Path
    canary: str
    env_canary: str
    home: Path
    marker: Path
    listener: socket.socket
    work_root: Path
    pids: list[int] = field(default_factory=list)

    @property
    def port(self) -> int:
        return self.listener.getsockname()[1]

    def render(self, code: str) -> str:
        return (
            code.replace("@SECRET@", repr(str(self.secret)))
            .replace("@MARKER@", repr(str(self.marker)))
            .replace("@OUTSIDE@", repr(str(self.outside)))
            .replace("@HOME@", repr(str(self.home)))
            .replace("@PORT@", str(self.port))
            .replace("@PICKLE@", repr(_evil_pickle(self.marker)))
        )


class _Evil:
    """Unpickling this runs `touch <marker>`: the classic pickle payload."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # noqa: ANN204
        return (os.system, (f"touch {self.marker}",))


def _evil_pickle(marker: Path) -> bytes:
    return pickle.dumps(_Evil(marker), protocol=2)


def _snapshot(root: Path) -> dict[str, tuple[int, bytes]]:
    return {
        str(p.relative_to(root)): (p.lstat().st_mode, p.read_bytes() if p.is_file() else b"")
        for p in sorted(root.rglob("*"))
    }


@pytest.fixture
def scene(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Scene:
    token = os.urandom(8).hex()
    data = tmp_path / "data"
    data.mkdir()
    (data / "a.csv").write_text("x,y\n1,2\n2,4\n3,9\n", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.txt"
    canary = f"CANARY-FILE-{token}"
    secret.write_text(canary + "\n", encoding="utf-8")
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(f"CANARY-HOME-{token}\n", encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    env_canary = f"sk-CANARY-ENV-{token}"
    for name in ("LABWRIGHT_API_KEY", "OPENAI_API_KEY", "DEEPSEEK_API_KEY", "MY_SERVICE_TOKEN"):
        monkeypatch.setenv(name, env_canary)

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.setblocking(False)

    work_root = tmp_path / "work-root"
    work_root.mkdir()
    monkeypatch.setattr(
        sandbox_runner,
        "_make_work_dir",
        lambda: Path(__import__("tempfile").mkdtemp(prefix="lw-", dir=work_root)),
    )
    made = Scene(
        root=tmp_path,
        data=data,
        figures=tmp_path / "run" / "figures",
        outside=outside,
        secret=secret,
        canary=canary,
        env_canary=env_canary,
        home=home,
        marker=tmp_path / f"MARKER-{token}",
        listener=listener,
        work_root=work_root,
    )

    real_popen = subprocess.Popen

    class RecordingPopen(real_popen):  # type: ignore[misc, valid-type]
        def __init__(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003
            super().__init__(*args, **kwargs)
            made.pids.append(self.pid)

    monkeypatch.setattr(sandbox_runner.subprocess, "Popen", RecordingPopen)
    yield made
    listener.close()


# --- payload-specific setup and checks ---------------------------------------------------


def _plant_data_symlink(s: Scene) -> None:
    (s.data / "link.csv").symlink_to(s.secret)


def _plant_evil_npy(s: Scene) -> None:
    import numpy as np

    np.save(s.data / "evil.npy", np.array([_Evil(s.marker)], dtype=object), allow_pickle=True)


def _plant_evil_pickle(s: Scene) -> None:
    (s.data / "evil.pkl").write_bytes(_evil_pickle(s.marker))


def _plant_png_and_style(s: Scene) -> None:
    import struct
    import zlib

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    raw = b"\x00" + bytes([13, 37, 42])  # one RGB pixel
    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )
    (s.outside / "secret.png").write_bytes(png)
    (s.outside / "evil.mplstyle").write_text("axes.titlesize: 42.125\n", encoding="utf-8")


def _no_passwd(s: Scene, r: FigureResult) -> None:
    text = r.message + r.stdout
    for marker in PASSWD_MARKERS:
        assert marker not in text


def _absent(text: str) -> Callable[[Scene, FigureResult], None]:
    def check(s: Scene, r: FigureResult) -> None:
        assert text not in r.message + r.stdout

    return check


def _no_pixel(s: Scene, r: FigureResult) -> None:
    assert "0.05098" not in r.stdout + r.message  # 13/255, the planted pixel


def _quick(limit: float) -> Callable[[Scene, FigureResult, float], None]:
    def check(s: Scene, r: FigureResult, elapsed: float) -> None:
        assert elapsed < limit, f"took {elapsed:.1f}s"

    return check


@dataclass(frozen=True)
class Payload:
    id: str
    code: str
    layer2_denied: bool = True  # layer 2 alone must *report* a refusal (not only fail)
    setup: Callable[[Scene], None] | None = None
    check: Callable[[Scene, FigureResult], None] | None = None
    timing: Callable[[Scene, FigureResult, float], None] | None = None
    timeout_s: float = 10.0
    memory_mb: int = 1536
    inputs: tuple[str, ...] = ()
    expect_in_message: str = ""


PAYLOADS: list[Payload] = [
    # --- reading files outside the data folder -------------------------------------------
    Payload("open_etc_passwd", "print(open('/etc/passwd').read())", False, check=_no_passwd),
    Payload(
        "builtins_open_secret",
        "import builtins\nprint(builtins.open(@SECRET@).read())",
    ),
    Payload(
        "pandas_read_csv_etc_passwd",
        "import pandas as pd\nprint(pd.read_csv('/etc/passwd', sep=':', header=None).to_string())",
        check=_no_passwd,
    ),
    Payload(
        "numpy_loadtxt_secret",
        "import numpy as np\nprint(np.loadtxt(@SECRET@, dtype=str))",
    ),
    Payload(
        "matplotlib_imread_outside",
        "import matplotlib.image as mpimg\nprint(mpimg.imread(@OUTSIDE@ + '/secret.png'))",
        setup=_plant_png_and_style,
        check=_no_pixel,
    ),
    Payload(
        "pathlib_read_text_secret",
        "from pathlib import Path\nprint(Path(@SECRET@).read_text())",
    ),
    Payload(
        "data_dir_dotdot_traversal",
        "print((DATA_DIR / '..' / 'outside' / 'secret.txt').read_text())",
    ),
    Payload(
        "home_via_expanduser",
        "from pathlib import Path\nprint(Path('~/.ssh/id_rsa').expanduser().read_text())",
        False,  # HOME is the sandbox's temp dir: the file is simply not there
    ),
    Payload(
        "home_absolute_path",
        "from pathlib import Path\nprint(Path(@HOME@ + '/.ssh/id_rsa').read_text())",
    ),
    Payload(
        "symlink_inside_data_dir",
        "import pandas as pd\nprint(pd.read_csv(DATA_DIR / 'link.csv'))",
        setup=_plant_data_symlink,
    ),
    Payload(
        "symlink_as_declared_input",
        "import matplotlib.pyplot as plt\nplt.plot([1])",
        setup=_plant_data_symlink,
        inputs=("link.csv",),
    ),
    Payload("io_open_secret", "import io\nprint(io.open(@SECRET@).read())"),
    Payload("codecs_open_secret", "import codecs\nprint(codecs.open(@SECRET@).read())"),
    Payload(
        "listdir_outside",
        "import os\nprint(os.listdir(@OUTSIDE@))",
        check=lambda s, r: _absent("secret.txt")(s, r),
    ),
    Payload(
        "chdir_then_relative_read",
        "import os\nos.chdir(@OUTSIDE@)\nprint(open('secret.txt').read())",
    ),
    Payload(
        "symlink_created_in_sandbox",
        "import os\nos.symlink(@SECRET@, 'l.txt')\nprint(open('l.txt').read())",
    ),
    Payload(
        "shutil_copy_secret_in",
        "import shutil\nshutil.copy(@SECRET@, 'c.txt')\nprint(open('c.txt').read())",
    ),
    Payload(
        "custom_pathlike_via_type",
        "import io\nP = type('P', (), {'__fspath__': lambda self: @SECRET@})\nprint(io.open(P()).read())",
    ),
    Payload(
        "style_file_outside",
        "import matplotlib.pyplot as plt\nplt.style.use(@OUTSIDE@ + '/evil.mplstyle')\n"
        "print(plt.rcParams['axes.titlesize'])\nplt.plot([1])",
        setup=_plant_png_and_style,
        check=lambda s, r: _absent("42.125")(s, r),
    ),
    # --- writing outside the figure output -------------------------------------------------
    Payload(
        "savefig_outside",
        "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.savefig(@OUTSIDE@ + '/x.png')",
    ),
    Payload(
        "savefig_into_data_dir",
        "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.savefig(DATA_DIR / 'x.png')",
    ),
    Payload(
        "pandas_to_csv_outside",
        "import pandas as pd\npd.DataFrame({'a': [1]}).to_csv(@OUTSIDE@ + '/x.csv')",
    ),
    Payload(
        "numpy_save_outside",
        "import numpy as np\nnp.save(@OUTSIDE@ + '/x.npy', np.zeros(3))",
    ),
    Payload(
        "numpy_savetxt_outside",
        "import numpy as np\nnp.savetxt(@OUTSIDE@ + '/x.txt', np.zeros(3))",
    ),
    Payload(
        "os_open_create_outside",
        "import os\nos.open(@OUTSIDE@ + '/w.txt', os.O_WRONLY | os.O_CREAT)",
    ),
    Payload("remove_data_file", "import os\nos.remove(DATA_DIR / 'a.csv')"),
    Payload(
        "huge_file_write",
        "from pathlib import Path\nPath('big.bin').write_bytes(b'0' * (200 * 1024 ** 2))",
        False,  # the file-size limit makes it fail; nothing is refused
        expect_in_message="File too large",
    ),
    # --- dynamic code and introspection ---------------------------------------------------
    Payload("dunder_import_os", "__import__('os').system('touch ' + @MARKER@)"),
    Payload(
        "importlib_os",
        "import importlib\nimportlib.import_module('os').system('touch ' + @MARKER@)",
    ),
    Payload(
        "subclasses_walk_to_os_system",
        "for c in ().__class__.__base__.__subclasses__():\n"
        "    if c.__name__ == '_wrap_close':\n"
        "        c.__init__.__globals__['system']('touch ' + @MARKER@)\n",
    ),
    Payload(
        "getattr_builtins_string_built",
        "print(getattr(__builtins__, 'op' + 'en')(@SECRET@).read())",
        False,  # layer 2 alone: the user builtins have no getattr/open at all
    ),
    Payload(
        "builtins_dict_string_built",
        "import builtins\nf = builtins.__dict__['op' + 'en']\nprint(f(@SECRET@).read())",
    ),
    Payload(
        "dunder_builtins_subscript",
        "print(__builtins__['open'](@SECRET@).read())",
        False,
    ),
    Payload(
        "string_built_eval",
        "import builtins\ne = builtins.__dict__['ev' + 'al']\n"
        'e("__imp" + "ort__(\'os\').system(\'touch " + @MARKER@ + "\')")',
    ),
    Payload(
        "lambda_globals_builtins",
        "f = lambda: 0\nprint(f.__globals__['__builtins__']['open'](@SECRET@).read())",
        False,
    ),
    Payload(
        "typing_forward_ref_eval",
        "from typing import get_type_hints\n"
        "def f(x: \"__import__('os').system('touch \" + @MARKER@ + \"')\"): pass\n"
        "get_type_hints(f)",
    ),
    Payload(
        "function_code_swap",
        "def f(): pass\n"
        "f.__code__ = (lambda: __import__('os').system('touch ' + @MARKER@)).__code__\nf()",
    ),
    Payload("sys_modules_os", "import sys\nsys.modules['os'].system('touch ' + @MARKER@)"),
    Payload(
        "gc_hunt_for_the_hook",
        "import gc\nfound = [o for o in gc.get_objects() if callable(o)]\n"
        "print(open(@SECRET@).read())",
    ),
    # --- processes -----------------------------------------------------------------------------
    Payload("os_system", "import os\nos.system('touch ' + @MARKER@)"),
    Payload("os_popen", "import os\nos.popen('touch ' + @MARKER@).read()"),
    Payload("subprocess_run", "import subprocess\nsubprocess.run(['touch', @MARKER@])"),
    Payload(
        "posixsubprocess_fork_exec",
        "import _posixsubprocess, os\nr, w = os.pipe()\n"
        "_posixsubprocess.fork_exec([b'/usr/bin/touch', @MARKER@.encode()], [b'/usr/bin/touch'], "
        "True, (w,), None, None, -1, -1, -1, -1, -1, -1, r, w, False, False, -1, None, None, None, "
        "-1, None, False)",
    ),
    Payload(
        "ctypes_libc_system",
        "import ctypes\nctypes.CDLL(None).system(('touch ' + @MARKER@).encode())",
    ),
    Payload(
        "usetex_starts_latex",
        "import matplotlib.pyplot as plt\nplt.rcParams['text.usetex'] = True\n"
        "plt.plot([1, 2])\nplt.title('x')",
        False,  # fails earlier: its tex cache dir would be in the read-only font cache
        expect_in_message="mathtext",
    ),
    Payload(
        "fork_bomb",
        "import os\nwhile True:\n    os.fork()",
        timing=_quick(8),
    ),
    Payload(
        "multiprocessing_bomb",
        "import multiprocessing as mp\nwhile True:\n    mp.Process(target=print).start()",
        timing=_quick(8),
    ),
    Payload(
        "setrlimit_then_memory_bomb",
        "import resource\n"
        "resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))\n"
        "x = bytearray(6 * 1024 ** 3)",
        memory_mb=512,
    ),
    # --- deserialisation -----------------------------------------------------------------------
    Payload("pickle_loads", "import pickle\npickle.loads(@PICKLE@)"),
    Payload(
        "numpy_load_allow_pickle",
        "import numpy as np\nnp.load(DATA_DIR / 'evil.npy', allow_pickle=True)",
        setup=_plant_evil_npy,
    ),
    Payload(
        "pandas_read_pickle",
        "import pandas as pd\npd.read_pickle(DATA_DIR / 'evil.pkl')",
        setup=_plant_evil_pickle,
    ),
    # --- network ------------------------------------------------------------------------------
    Payload(
        "socket_to_localhost",
        "import socket\ns = socket.socket()\ns.connect(('127.0.0.1', @PORT@))\ns.sendall(b'hi')",
    ),
    Payload(
        "pandas_read_csv_url",
        "import pandas as pd\nprint(pd.read_csv('http://127.0.0.1:@PORT@/x.csv'))",
    ),
    Payload(
        "urllib_urlopen",
        "import urllib.request\nurllib.request.urlopen('http://127.0.0.1:@PORT@/').read()",
    ),
    # --- secrets in the environment ----------------------------------------------------------
    Payload(
        "environ_api_key",
        "import os\nimport matplotlib.pyplot as plt\nprint(dict(os.environ))\nplt.plot([1])\n"
        "print(os.environ['LABWRIGHT_API_KEY'])",
        False,  # the variable does not exist in the child: a KeyError, no refusal
    ),
    Payload(
        "parent_proc_environ",
        "import os, builtins\nprint(builtins.open('/proc/%d/environ' % os.getppid(), 'rb').read())",
        False,  # /proc is unreadable; a quiet PermissionError
        check=lambda s, r: _absent("PATH=")(s, r),
    ),
    # --- exhausting the machine --------------------------------------------------------------
    Payload(
        "endless_loop",
        "while True:\n    pass",
        False,
        timeout_s=3,
        timing=_quick(3 + 3),
        expect_in_message="did not finish within 3 s",
    ),
    Payload(
        "memory_bomb_single",
        "x = bytearray(8 * 1024 ** 3)",
        False,
        memory_mb=512,
        expect_in_message="MemoryError",
    ),
    Payload(
        "memory_bomb_growing",
        "chunks = []\nwhile True:\n    chunks.append(bytearray(50 * 1024 ** 2))",
        False,
        memory_mb=512,
        timing=_quick(10),
        expect_in_message="MemoryError",
    ),
]


def _cases() -> list:
    cases = []
    for payload in PAYLOADS:
        statically_refused = bool(check_code(payload.code.replace("@", "")))
        cases.append(pytest.param(payload, "full", id=f"{payload.id}-full"))
        if statically_refused:
            cases.append(pytest.param(payload, "layer2", id=f"{payload.id}-layer2"))
    return cases


def _group_members(pgid: int) -> list[int]:
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:  # field 5 of /proc/<pid>/stat: the process group
            members.append(int(entry.name))
    return members


def _files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and not p.is_symlink()]


@pytest.mark.parametrize(("payload", "mode"), _cases())
def test_escape_has_no_effect(payload: Payload, mode: str, scene: Scene) -> None:
    if payload.setup:
        payload.setup(scene)
    code = scene.render(payload.code)
    data_before = _snapshot(scene.data)
    outside_before = _snapshot(scene.outside)

    kwargs = dict(
        data_dir=scene.data,
        figures_dir=scene.figures,
        filename="escape",
        caption="escape attempt",
        inputs=list(payload.inputs) or None,
        timeout_s=payload.timeout_s,
        memory_mb=payload.memory_mb,
    )
    started = time.monotonic()
    if mode == "full":
        result = run_figure(code, **kwargs)
    else:
        result = sandbox_runner._run(code, static_check=False, **kwargs)
    elapsed = time.monotonic() - started

    # The attempt failed ...
    assert not result.ok, result.message
    assert result.pdf is None and result.meta is None
    if mode == "full" and check_code(code):
        assert result.denied, result.message
    if mode == "layer2" and payload.layer2_denied:
        assert result.denied, result.message
    if payload.expect_in_message:
        assert payload.expect_in_message in result.message, result.message

    # ... and had no effect outside the sandbox.
    visible = result.message + result.stdout
    for canary in (scene.canary, scene.env_canary, "CANARY-HOME"):
        assert canary not in visible
    assert not scene.marker.exists(), "a command ran"
    with pytest.raises(BlockingIOError):
        scene.listener.accept()  # nobody connected to the loopback listener
    assert _snapshot(scene.data) == data_before, "the data folder changed"
    assert _snapshot(scene.outside) == outside_before, "a file appeared or changed outside"
    if scene.figures.exists():
        for path in _files(scene.figures):
            assert scene.canary.encode() not in path.read_bytes()
    for path in _files(scene.root):
        assert path.stat().st_size <= CAP_BYTES, f"{path} exceeds the file-size cap"
    assert list(scene.work_root.iterdir()) == [], "the sandbox work dir was not removed"
    for pid in scene.pids:
        assert _group_members(pid) == [], "a sandbox process survived"
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    if payload.check:
        payload.check(scene, result)
    if payload.timing:
        payload.timing(scene, result, elapsed)


def test_corpus_is_large_enough() -> None:
    assert len(PAYLOADS) >= 30
    assert len({p.id for p in PAYLOADS}) == len(PAYLOADS)
