"""`labwright doctor` and the display check before Qt: what is missing is named, with the fix.

A machine missing a Qt library is simulated with a stub plugin folder and a patched
`ldd` (the dynamic loader's answer); a missing TeX with LABWRIGHT_TEX=none; a missing
keyring is the tests' default (conftest installs keyring's fail backend). The
provider check talks to the fake server over real loopback HTTP.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections import namedtuple
from pathlib import Path

import pytest

from fakes import FakeLLM, call, http_error, rejects_tools, text, text_only, tool_calls
from labwright import doctor
from labwright.cli import main
from labwright.core.report.latex import Engines

ICCCM_MISSING = """\
\tlinux-vdso.so.1 (0x00007ffd2b3f5000)
\tlibQt6XcbQpa.so.6 => /opt/pyside/Qt/lib/libQt6XcbQpa.so.6 (0x00007f0c5b000000)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibxcb.so.1 => /lib/x86_64-linux-gnu/libxcb.so.1 (0x00007f0c5a000000)
\tlibxcb-frobnicate.so.7 => not found
"""
ALL_THERE = "\tlibxcb.so.1 => /lib/x86_64-linux-gnu/libxcb.so.1 (0x00007f0c5a000000)\n"
CALLS_THE_TOOL = tool_calls(call("report_ready", {"word": "ok"}))
FULL_TEX = Engines(
    latexmk="/usr/bin/latexmk",
    xelatex="/usr/bin/xelatex",
    lualatex=None,
    pdflatex=None,
    ctex=True,
    cjk_font=True,
)


@pytest.fixture
def plugins(tmp_path, monkeypatch) -> Path:
    """A stub PySide6 plugin folder with an xcb and a Wayland platform plugin, used by
    every check (also inside `labwright doctor` and `labwright gui`)."""
    root = tmp_path / "plugins"
    (root / "platforms").mkdir(parents=True)
    for name in ("libqxcb.so", "libqwayland.so"):
        (root / "platforms" / name).write_bytes(b"\x7fELF stub")
    monkeypatch.setenv("LABWRIGHT_QT_PLUGINS", str(root))
    return root


def fake_ldd(answers: dict[str, str]):
    """`ldd` as a loader that lacks some libraries: plugin file name -> ldd's output."""

    def ldd(path: Path) -> str:
        return answers[path.name]

    return ldd


@pytest.fixture
def x_display():
    """A listening X11 socket in the abstract namespace: DISPLAY=:N reaches 'a server'."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    for number in range(4000, 4100):
        try:
            sock.bind(f"\0/tmp/.X11-unix/X{number}")
            break
        except OSError:
            continue
    else:
        pytest.fail("no free X display number for the stub")
    sock.listen(4)
    yield f":{number}"
    sock.close()


def test_missing_qt_libraries_are_named_with_their_packages(plugins):
    check = doctor.qt_check(
        {"DISPLAY": ":0"}, platform="linux", ldd=fake_ldd({"libqxcb.so": ICCCM_MISSING})
    )
    assert not check.ok and check.needed and check.status == "missing"
    assert "libxcb-icccm.so.4 (libxcb-icccm4 / xcb-util-wm)" in check.detail
    assert "libxcb-keysyms.so.1 (libxcb-keysyms1 / xcb-util-keysyms)" in check.detail
    assert "libxcb.so.1" not in check.detail  # found: not named
    assert check.fix[0] == "sudo apt-get install libxcb-icccm4 libxcb-keysyms1    # Debian/Ubuntu"
    assert check.fix[1] == "sudo dnf install xcb-util-wm xcb-util-keysyms    # Fedora"
    # a library the table does not know still gets a way to find its package
    assert "apt-file search libxcb-frobnicate.so.7" in "\n".join(check.fix)
    assert "dnf provides '*/libxcb-frobnicate.so.7'" in "\n".join(check.fix)


def test_qt_libraries_all_there(plugins):
    check = doctor.qt_check({}, platform="linux", ldd=fake_ldd({"libqxcb.so": ALL_THERE}))
    assert check.ok and not check.fix


def test_under_wayland_a_broken_xcb_plugin_is_only_a_warning(plugins):
    ldd = fake_ldd({"libqxcb.so": ICCCM_MISSING, "libqwayland.so": ALL_THERE})
    check = doctor.qt_check({"WAYLAND_DISPLAY": "wayland-0"}, platform="linux", ldd=ldd)
    assert not check.ok and not check.needed and "Wayland works" in check.detail


def test_no_qt_plugin_at_all_says_reinstall(tmp_path, monkeypatch):
    (tmp_path / "platforms").mkdir()
    check = doctor.qt_check({}, platform="linux", plugins=tmp_path, ldd=fake_ldd({}))
    assert not check.ok and "PySide6" in check.fix[0]


def test_macos_and_windows_need_no_qt_libraries():
    for platform in ("darwin", "win32"):
        assert doctor.qt_check({}, platform=platform).ok
        assert doctor.display_problem({}, platform=platform) is None


def test_the_real_loader_is_asked_about_the_real_plugin():
    plugin = doctor.platform_plugin("xcb")
    assert plugin is not None and plugin.name == "libqxcb.so"
    # whatever this machine lacks, the answer is a list of library file names
    assert all(".so" in lib for lib in doctor.missing_libraries(plugin))


# --- the display check that runs before Qt --------------------------------------------


def test_no_display_is_a_sentence_not_an_abort():
    problem = doctor.display_problem({}, platform="linux")
    assert "DISPLAY and WAYLAND_DISPLAY are unset" in problem
    assert "labwright run FOLDER" in problem and "labwright doctor" in problem


@pytest.mark.parametrize("platform", ["offscreen", "minimal", "vnc:size=800x600"])
def test_a_headless_qt_platform_needs_no_display(platform):
    assert doctor.display_problem({"QT_QPA_PLATFORM": platform}, platform="linux") is None


def test_a_display_that_does_not_answer_is_reported(tmp_path):
    env = {"DISPLAY": ":4999", "WAYLAND_DISPLAY": str(tmp_path / "no-such-socket")}
    problem = doctor.display_problem(env, platform="linux")
    assert "DISPLAY=:4999" in problem and "no display server answers" in problem


def test_a_reachable_display_with_missing_libraries_gives_the_install_commands(plugins, x_display):
    ldd = fake_ldd({"libqxcb.so": ICCCM_MISSING})
    problem = doctor.display_problem({"DISPLAY": x_display}, platform="linux", ldd=ldd)
    assert "libxcb-icccm.so.4, libxcb-keysyms.so.1" in problem
    assert "sudo apt-get install libxcb-icccm4 libxcb-keysyms1" in problem
    assert "sudo dnf install xcb-util-wm xcb-util-keysyms" in problem
    assert (
        doctor.display_problem(
            {"DISPLAY": x_display}, platform="linux", ldd=fake_ldd({"libqxcb.so": ALL_THERE})
        )
        is None
    )


def test_wayland_that_works_is_enough(plugins, tmp_path):
    path = tmp_path / f"wl-{uuid.uuid4().hex[:8]}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(str(path))
        server.listen(1)
        ldd = fake_ldd({"libqxcb.so": ICCCM_MISSING, "libqwayland.so": ALL_THERE})
        env = {"WAYLAND_DISPLAY": str(path)}
        assert doctor.display_problem(env, platform="linux", ldd=ldd) is None
        broken = fake_ldd({"libqxcb.so": ICCCM_MISSING, "libqwayland.so": ICCCM_MISSING})
        assert "libxcb-icccm.so.4" in doctor.display_problem(env, platform="linux", ldd=broken)


# --- TeX, the API key, disk -------------------------------------------------------------


def test_missing_tex_is_named_with_the_install_commands(monkeypatch):
    monkeypatch.setenv("LABWRIGHT_TEX", "none")
    tex, zh = doctor.tex_checks("linux")
    # a warning: reports are still written (as .tex), only the PDF needs TeX
    assert not tex.ok and not tex.needed and "no xelatex, lualatex or pdflatex" in tex.detail
    assert tex.fix[0].startswith("sudo apt-get install texlive-xetex")
    assert "latexmk" in tex.fix[0] and "fonts-noto-cjk" in tex.fix[0]
    assert tex.fix[1].startswith("sudo dnf install latexmk")
    assert not zh.ok and not zh.needed and "ctex" in zh.detail
    assert "brew install --cask mactex-no-gui" in doctor.tex_checks("darwin")[0].fix[0]
    assert "winget install MiKTeX.MiKTeX" in doctor.tex_checks("win32")[0].fix[0]


def test_tex_found(monkeypatch):
    monkeypatch.setattr("labwright.core.report.latex.probe_engines", lambda: FULL_TEX)
    tex, zh = doctor.tex_checks("linux")
    assert tex.ok and "xelatex (/usr/bin/xelatex), latexmk" in tex.detail
    assert zh.ok


def test_without_a_keyring_the_key_line_says_settings_keeps_it_in_a_file(isolated_home):
    check = doctor.key_check()  # conftest: keyring's fail backend, no key anywhere
    assert check.ok and check.status == "ok"
    assert check.detail == (
        "deepseek: none yet; with no system keyring here, Settings keeps keys in a file "
        f"only you can read, in {isolated_home / 'keys'}"
    )


def test_a_keyring_is_named(memory_keyring):
    check = doctor.key_check()
    assert check.ok and "Settings keeps keys in the system keyring (MemoryKeyring)" in check.detail


@pytest.mark.parametrize(
    "store, said",
    [
        ("keyring", "deepseek: in the system keyring (MemoryKeyring)"),
        ("file", "deepseek: in the file {home}/keys/deepseek (only you can read it)"),
        ("session", "deepseek: kept for this session only (forgotten when Labwright closes)"),
    ],
)
def test_the_key_line_says_where_the_key_is_kept(memory_keyring, isolated_home, store, said):
    from labwright.core.settings.saved import set_api_key

    set_api_key("deepseek", "sk-fake-doctor-stored-key", store)
    check = doctor.key_check()
    assert check.ok and check.detail == said.format(home=isolated_home)
    assert "sk-doctor-stored" not in check.detail + "".join(check.fix)


def test_the_key_line_names_the_environment_variable(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-doctor-env-key")
    check = doctor.key_check("openai")
    assert check.ok and check.detail == "openai: from the environment variable OPENAI_API_KEY"
    assert doctor.key_check("ollama").detail == (
        "ollama: none needed (the server runs on this computer)"
    )


def test_a_key_file_open_to_others_is_a_warning_with_the_chmod(isolated_home):
    from labwright.core.settings.saved import set_api_key

    set_api_key("deepseek", "sk-fake-doctor-stored-key", "file")
    (isolated_home / "keys" / "deepseek").chmod(0o644)
    check = doctor.key_check()
    assert check.status == "warning" and "which others can read too" in check.detail
    keys = isolated_home / "keys"
    assert check.fix == (f"chmod 700 {keys} && chmod 600 {keys / 'deepseek'}",)


def test_a_key_file_that_is_a_link_is_named(isolated_home, tmp_path):
    (tmp_path / "elsewhere").write_text("sk-planted-0000000000\n")
    (isolated_home / "keys").mkdir(mode=0o700)
    (isolated_home / "keys" / "deepseek").symlink_to(tmp_path / "elsewhere")
    check = doctor.key_check()
    assert check.status == "warning" and "a link" in check.detail
    assert check.fix[0] == f"rm {isolated_home / 'keys' / 'deepseek'}"
    assert "sk-planted" not in check.detail


def test_disk_space(monkeypatch, isolated_home):
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(doctor.shutil, "disk_usage", lambda p: usage(0, 0, 50 * 2**20))
    check = doctor.disk_check(isolated_home / "not" / "made" / "yet")
    assert not check.ok and check.needed and "50 MB free" in check.detail
    monkeypatch.setattr(doctor.shutil, "disk_usage", lambda p: usage(0, 0, 500 * 2**20))
    assert doctor.disk_check().status == "warning"
    monkeypatch.setattr(doctor.shutil, "disk_usage", lambda p: usage(0, 0, 5000 * 2**20))
    assert doctor.disk_check().ok


# --- the provider: one small request -------------------------------------------------------


def test_the_provider_answers(monkeypatch):
    with FakeLLM([CALLS_THE_TOOL], api_key="sk-doctor-key-0123456789") as llm:
        monkeypatch.setenv("LABWRIGHT_BASE_URL", llm.base_url)
        monkeypatch.setenv("LABWRIGHT_API_KEY", "sk-doctor-key-0123456789")
        check = doctor.provider_check()
        # the models list, then one tiny tool-call request to the exploring model
        assert llm.calls == 1
        probe = llm.last_request
    assert check.ok and "answers (3 models" in check.detail
    assert "deepseek-chat can call tools" in check.detail
    assert probe["model"] == "deepseek-chat" and len(probe["tools"]) == 1
    # the model's own choice ("auto"), never forced: forcing would prove nothing
    assert probe["max_tokens"] <= 256 and probe["tool_choice"] == "auto"


def test_a_wrong_key_is_reported_without_the_key(monkeypatch):
    with FakeLLM([], api_key="sk-right-key-0123456789") as llm:
        monkeypatch.setenv("LABWRIGHT_BASE_URL", llm.base_url)
        monkeypatch.setenv("LABWRIGHT_API_KEY", "sk-wrong-key-9876543210")
        check = doctor.provider_check()
    assert not check.ok and check.needed
    assert "sk-wrong-key" not in check.detail + "".join(check.fix)
    assert "key" in check.detail.lower()


def test_no_key_is_a_warning_that_offline_reports_work():
    check = doctor.provider_check("openai")  # no keyring here (conftest)
    assert check.status == "warning" and not check.needed
    assert check.detail == (
        "openai at https://api.openai.com/v1: no API key yet. Offline reports work; for "
        "reports written by a model, add one in Settings (kept in a file only you can read)"
    )
    assert "“Keep in a file only I can read” (no keyring here)" in "".join(check.fix)
    assert "cannot be stored" not in check.detail + "".join(check.fix)
    assert any(step.startswith("export OPENAI_API_KEY=sk-…") for step in check.fix)
    assert all(step.startswith(("#", "export")) for step in check.fix)


def test_no_key_with_a_keyring_says_the_keyring(memory_keyring):
    check = doctor.provider_check("openai")
    assert check.status == "warning"
    assert "add one in Settings (kept in the system keyring (MemoryKeyring))" in check.detail
    assert "it is kept in the system keyring" in "".join(check.fix)


def test_an_unreachable_server(monkeypatch):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("LABWRIGHT_BASE_URL", f"http://127.0.0.1:{port}/v1")
    check = doctor.provider_check()
    assert not check.ok and f"127.0.0.1:{port}" in check.detail


# --- `labwright doctor` -----------------------------------------------------------------


def test_doctor_names_each_missing_thing_and_its_fix(plugins, monkeypatch, capsys):
    monkeypatch.setattr(doctor, "_ldd", fake_ldd({"libqxcb.so": ICCCM_MISSING}))
    monkeypatch.setenv("LABWRIGHT_TEX", "none")
    assert main(["doctor", "--offline"]) == 1
    out = capsys.readouterr().out
    table = out.split("To fix:")[0]
    assert "Qt platform libraries" in table and "libxcb-icccm.so.4 (libxcb-icccm4" in table
    assert "TeX engine" in table and "no xelatex" in table
    assert "API key" in table and "a file only you can read" in table
    fixes = out.split("To fix:")[1]
    assert "sudo apt-get install libxcb-icccm4 libxcb-keysyms1" in fixes
    assert "sudo apt-get install texlive-xetex" in fixes
    assert "Not ready: Qt platform libraries." in out  # no TeX: a warning (no PDFs)


def test_doctor_exits_0_when_everything_needed_is_there(
    plugins, monkeypatch, capsys, memory_keyring, x_display
):
    monkeypatch.setattr(doctor, "_ldd", fake_ldd({"libqxcb.so": ALL_THERE}))
    monkeypatch.setattr("labwright.core.report.latex.probe_engines", lambda: FULL_TEX)
    monkeypatch.setenv("DISPLAY", x_display)
    with FakeLLM([CALLS_THE_TOOL]) as llm:
        monkeypatch.setenv("LABWRIGHT_BASE_URL", llm.base_url)
        monkeypatch.setenv("LABWRIGHT_API_KEY", "sk-doctor-0123456789")
        code = main(["doctor"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "Everything Labwright needs is there." in out and "To fix:" not in out


def test_doctor_without_a_key_is_ready_for_offline_reports(plugins, monkeypatch, capsys, x_display):
    """Issue 24: no key (and no keyring) is no reason for "Not ready" while offline reports
    work; the provider line says so and how to add a key here. No TeX is a warning too."""
    monkeypatch.setattr(doctor, "_ldd", fake_ldd({"libqxcb.so": ALL_THERE}))
    monkeypatch.setenv("LABWRIGHT_TEX", "none")
    monkeypatch.setenv("DISPLAY", x_display)
    code = main(["doctor"])  # DeepSeek, no key anywhere: nothing is sent
    out = capsys.readouterr().out
    assert code == 0, out
    line = next(row for row in out.splitlines() if row.startswith("Model provider"))
    assert "WARNING" in line and "Offline reports work" in line
    assert "add one in Settings (kept in a file only you can read)" in line
    assert "Not ready" not in out
    assert (
        "Ready, with warnings: TeX engine, Chinese reports (ctex, CJK font), Model provider." in out
    )


def test_an_unreachable_local_server_gets_the_commands_that_start_it(ready_machine, capsys):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    assert main(["doctor", "--provider", "ollama", "--base-url", url]) == 1
    fixes = capsys.readouterr().out.split("To fix:")[1]
    assert "ollama serve\n" in fixes and "ollama pull qwen2.5:7b\n" in fixes
    assert main(["doctor", "--provider", "vllm", "--base-url", url]) == 1
    fixes = capsys.readouterr().out.split("To fix:")[1]
    assert "vllm serve Qwen/Qwen2.5-7B-Instruct --enable-auto-tool-choice" in fixes


def test_doctor_rejects_an_unknown_provider(capsys):
    assert main(["doctor", "--provider", "nonesuch"]) == 2
    err = capsys.readouterr().err
    assert "Unknown provider 'nonesuch'" in err and "deepseek" in err and "llamacpp" in err


# --- `labwright doctor --provider`: can the model call tools? -----------------------------

DOCTOR_KEY = "sk-doctor-local-0123456789"


@pytest.fixture
def ready_machine(plugins, monkeypatch, memory_keyring, x_display):
    """Everything but the provider is there, so the exit status is the provider's."""
    monkeypatch.setattr(doctor, "_ldd", fake_ldd({"libqxcb.so": ALL_THERE}))
    monkeypatch.setattr("labwright.core.report.latex.probe_engines", lambda: FULL_TEX)
    monkeypatch.setenv("DISPLAY", x_display)
    # a local server started with a key of its own: LABWRIGHT_API_KEY carries it
    monkeypatch.setenv("LABWRIGHT_API_KEY", DOCTOR_KEY)


def doctor_against(script, provider: str, capsys) -> tuple[int, str, dict]:
    with FakeLLM(script, api_key=DOCTOR_KEY) as llm:
        code = main(["doctor", "--provider", provider, "--base-url", llm.base_url])
        request = llm.last_request
    out = capsys.readouterr().out
    line = next(row for row in out.splitlines() if row.startswith("Model provider"))
    assert DOCTOR_KEY not in out
    return code, out, {"line": line, "request": request}


def test_doctor_provider_says_the_model_can_call_tools(ready_machine, capsys):
    code, out, seen = doctor_against([CALLS_THE_TOOL], "llamacpp", capsys)
    assert code == 0, out
    assert "llamacpp at http://127.0.0.1:" in seen["line"]
    assert "default can call tools" in seen["line"]  # the preset's model, named
    assert seen["request"]["model"] == "default" and seen["request"]["tools"]


def test_doctor_sends_tool_choice_auto_which_some_servers_need_to_offer_tools(
    ready_machine, capsys
):
    # llama-cpp-python's chatml-function-calling drops the tools unless tool_choice is
    # "auto": without it every model would look like one that cannot call tools
    def server(body, n):
        return CALLS_THE_TOOL if body.get("tool_choice") == "auto" else text("Hello!")

    code, out, seen = doctor_against(server, "llamacpp", capsys)
    assert code == 0, out
    assert "default can call tools" in seen["line"]


def test_doctor_asks_again_without_tool_choice_where_the_server_rejects_it(ready_machine, capsys):
    def server(body, n):
        if "tool_choice" in body:
            return http_error(400, "tool_choice is not supported")
        return CALLS_THE_TOOL

    code, out, seen = doctor_against(server, "vllm", capsys)
    assert code == 0, out
    assert "can call tools" in seen["line"]
    assert "tool_choice" not in seen["request"]


def test_doctor_provider_says_a_text_answer_is_weak_tool_support(ready_machine, capsys):
    code, out, seen = doctor_against(text_only(), "lmstudio", capsys)
    assert code == 0, out  # a report still comes out (degraded): a warning, not missing
    assert "WARNING" in seen["line"]
    assert (
        "qwen2.5-7b-instruct answered in text without calling the tool (weak tool support)"
        in seen["line"]
    )
    assert "Load a model with tool support in LM Studio" in out.split("To fix:")[1]


def test_doctor_provider_says_the_model_rejects_tools(ready_machine, capsys):
    code, out, seen = doctor_against(rejects_tools(), "ollama", capsys)
    assert code == 1
    assert "MISSING" in seen["line"]
    assert "qwen2.5:7b rejects tools (HTTP 400): " in seen["line"]
    assert "qwen2.5:7b does not support tools" in seen["line"]  # the server's words
    assert "ollama pull qwen2.5:7b" in out.split("To fix:")[1]
    # what is set up does not work, but an offline report can be made: said so
    assert "Offline reports work; reports written by a model need: Model provider." in out
    assert "Not ready" not in out


def test_doctor_custom_provider_needs_a_url(capsys):
    assert main(["doctor", "--provider", "custom"]) == 1
    out = capsys.readouterr().out
    assert "The custom provider needs the server's URL" in out


def test_doctor_never_loads_qt(tmp_path):
    """The doctor must work where Qt cannot even load: it looks at files, it imports none."""
    code = (
        "import sys; from labwright import doctor; doctor.run_checks(offline=True); "
        "print(sorted(m for m in sys.modules if m.startswith('PySide6')))"
    )
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "desktop")}
    env["LABWRIGHT_HOME"] = str(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
