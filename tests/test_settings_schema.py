"""One declared settings schema (core/settings/config.py SCHEMA, issue 22): from it come
the options of `labwright run`, the Settings dialog's widgets and checks, settings.json
(read by kind, versioned, migrated) and run.json's `config`.

The test that matters most adds a setting to the schema, and nothing else, and finds
it in `run --help`, in the parsed flags, in the dialog, in settings.json and in
run.json. The settings files of tests/data/settings/ were written by release c57c41e
(tests/data/settings/make_v1.py); today's code must load them into the same values.
"""

from __future__ import annotations

import ast
import json
import shutil
from dataclasses import asdict, fields, replace
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QGroupBox, QSpinBox

from labwright import cli
from labwright.cli import main
from labwright.core.settings import config, saved
from labwright.core.settings.config import SCHEMA, RunConfig, Settings
from labwright.core.settings.resolve import resolve_config
from labwright.core.settings.saved import (
    Migration,
    load_settings,
    save_settings,
    settings_path,
)
from labwright.core.settings.schema import Count, Flag, Resume, Setting, Widget

ROOT = Path(__file__).resolve().parents[1]
V1 = ROOT / "tests" / "data" / "settings"
SETTINGS_PKG = ROOT / "desktop" / "labwright" / "core" / "settings"

# A setting no Labwright has: declared here, in the schema only.
EXAMPLE = Setting(
    "example_cap",
    Count(1, 50),
    5,
    "an example cap, for the schema's test (default {default:g})",
    flag=Flag("--example-cap", metavar="N", group="limits"),
    widget=Widget(
        "spin", "budget", "&Example cap:", "example_cap_spin", maximum=100, tip="An example."
    ),
    saved=True,
)


@pytest.fixture
def example(monkeypatch):
    monkeypatch.setattr(SCHEMA, "settings", (*SCHEMA.settings, EXAMPLE))
    return EXAMPLE


def run_json(out: Path) -> dict[str, Any]:
    return json.loads((out / "run.json").read_text(encoding="utf-8"))["config"]


def offline_run(material: Path, out: Path, *flags: str) -> int:
    return main(["run", str(material), "--offline", "--no-compile", "--out", str(out), *flags])


# -- one setting, declared once ----------------------------------------------------------


def test_a_setting_added_to_the_schema_is_a_flag_of_run(example, capsys, material, tmp_path):
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    limits = capsys.readouterr().out.split("\nlimits:\n", 1)[1]
    assert "--example-cap N" in limits
    assert "an example cap, for the schema's test (default 5)" in limits
    args = cli._parser().parse_args(["run", str(material), "--example-cap", "9"])
    assert SCHEMA.flag_values(vars(args)) == {"example_cap": 9}
    # its kind's bounds hold on the command line, naming the flag
    assert main(["run", str(material), "--offline", "--example-cap", "51"]) == 2
    assert "--example-cap must be at most 50" in capsys.readouterr().err
    # and the flag reaches run.json
    assert offline_run(material, tmp_path / "run", "--example-cap", "9") == 10
    assert run_json(tmp_path / "run")["example_cap"] == 9


def test_a_setting_added_to_the_schema_is_in_the_dialog_and_reaches_run_json(
    example, qtbot, memory_keyring, material, tmp_path
):
    from labwright.gui.settings_dialog import SettingsDialog

    dialog = SettingsDialog(load_settings())
    qtbot.addWidget(dialog)
    dialog.show()
    spin = dialog.findChild(QSpinBox, "example_cap_spin")
    assert spin is not None and spin.value() == 5  # the schema's default
    box = spin.parentWidget()
    assert isinstance(box, QGroupBox) and box.title() == "Budget and prices"
    assert spin.toolTip() == "An example."
    spin.setFocus()
    spin.selectAll()
    qtbot.keyClicks(spin, "12")
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.LeftButton)
    assert json.loads(settings_path().read_text(encoding="utf-8"))["example_cap"] == 12
    # settings.json's value reaches a run; a flag beats it
    assert offline_run(material, tmp_path / "saved") == 10
    assert run_json(tmp_path / "saved")["example_cap"] == 12
    assert offline_run(material, tmp_path / "flag", "--example-cap", "3") == 10
    assert run_json(tmp_path / "flag")["example_cap"] == 3
    again = SettingsDialog(load_settings())
    qtbot.addWidget(again)
    assert again.findChild(QSpinBox, "example_cap_spin").value() == 12


def test_the_dialog_checks_a_value_by_its_settings_kind(example, qtbot, memory_keyring):
    """The widget offers up to 100; the kind takes up to 50: OK refuses, saves nothing."""
    from labwright.gui.settings_dialog import SettingsDialog

    dialog = SettingsDialog(Settings())
    qtbot.addWidget(dialog)
    dialog.show()
    spin = dialog.findChild(QSpinBox, "example_cap_spin")
    spin.setFocus()
    spin.selectAll()
    qtbot.keyClicks(spin, "60")
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.LeftButton)
    assert dialog.isVisible() and "example_cap must be at most 50" in dialog.error_label.text()
    assert not settings_path().exists()
    # positive control: a value the kind takes is saved
    spin.selectAll()
    qtbot.keyClicks(spin, "50")
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.LeftButton)
    assert load_settings().get("example_cap") == 50


def test_a_run_folder_never_sets_a_new_setting(example, material, tmp_path, monkeypatch):
    """A setting declares nothing about resuming: run.json's value is not taken."""
    from labwright.core.rundir.resume import resumed_config

    assert example.resume is Resume.MINE  # the default of every setting
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-fake-env-key-of-the-test")
    run_dir = tmp_path / "received"
    run_dir.mkdir()
    public = config.config_from_values(material, {"example_cap": 1}).public_dict()
    meta = {"schema_version": 1, "status": "running", "config": public}
    (run_dir / "run.json").write_text(json.dumps(meta), encoding="utf-8")
    (run_dir / "events.jsonl").write_text("", encoding="utf-8")
    assert resumed_config(run_dir).option("example_cap") == 5  # the person's (the default)
    # positive control: what the person gives here is what the run gets
    assert resumed_config(run_dir, flags={"example_cap": 7}).option("example_cap") == 7


# -- the schema agrees with the records made from it ----------------------------------------


def test_every_field_of_runconfig_and_settings_is_a_declared_setting():
    run_fields = {f.name for f in fields(RunConfig)} - {"folder", "out_dir", "options"}
    targets = {config.target(s).field for s in SCHEMA.run()}
    assert run_fields == targets
    assert {f.name for f in fields(Settings)} - {"options"} == {s.key for s in SCHEMA.saved()}
    d, s = RunConfig(folder=Path("x")), Settings()
    for setting in SCHEMA.run():
        if setting.name != "provider":  # a RunConfig made without a preset says so: None
            assert d.option(setting.name) == setting.default, setting.name
    for setting in SCHEMA.saved():
        assert s.get(setting.name) == setting.default, setting.name
    flags = [s.flag.name for s in SCHEMA.flagged() if s.flag]
    assert len(flags) == len(set(flags))


def test_a_secret_reaches_no_file(memory_keyring, isolated_home, material, tmp_path):
    secrets = [s for s in SCHEMA if s.secret]
    assert [s.name for s in secrets] == ["api_key"]
    key = "sk-fake-secret-of-the-schema-test"
    assert offline_run(material, tmp_path / "run", "--api-key", key) == 10
    save_settings(load_settings())
    files = [p for p in [*tmp_path.rglob("*"), *isolated_home.rglob("*")] if p.is_file()]
    assert files and not [p for p in files if key.encode() in p.read_bytes()]
    assert "api_key" not in run_json(tmp_path / "run")
    assert run_json(tmp_path / "run")["api_key_set"] is True  # positive control: it was there


def test_a_bad_flag_value_names_the_flag(material, capsys):
    for flag, value, message in [
        ("--max-iters", "0", "--max-iters must be a positive number"),
        ("--max-figures", "0", "--max-figures must be a positive number"),
        ("--reflect", "11", "--reflect must be at most 10"),  # what resume always refused
        ("--max-minutes", "0", "max_minutes must be a positive number of minutes"),
        ("--template", "nope", "No template named 'nope'. Available: "),
    ]:
        assert main(["run", str(material), "--offline", flag, value]) == 2, flag
        assert message in capsys.readouterr().err


# -- settings.json: the files of release c57c41e, and migrations -------------------------


def _v1_files() -> list[Path]:
    files = sorted(p for p in V1.glob("v1-*.json") if not p.name.endswith(".expected.json"))
    assert len(files) >= 4
    return files


def _differences(path: Path, expected: dict[str, Any]) -> list[str]:
    """Where today's reading of the file `path` differs from the release's."""
    shutil.copyfile(path, settings_path())
    loaded = load_settings()
    out = []
    now = {k: v for k, v in asdict(loaded).items() if k != "options"}
    then = dict(expected["settings"])
    if then["max_minutes"] is None:
        # The release kept null for "RunConfig's default"; a null is now the default itself.
        then["max_minutes"] = SCHEMA["max_minutes"].default
    out += [
        f"settings.{k}: {then[k]!r} then, {now.get(k)!r} now" for k in then if now.get(k) != then[k]
    ]
    out += [f"settings.{k} is new" for k in now if k not in then]
    run = resolve_config(Path("/material"), settings=loaded, env={}).public_dict()
    out += [
        f"run.{k}: {expected['run'].get(k)!r} then, {run.get(k)!r} now"
        for k in {*run, *expected["run"]}
        if run.get(k) != expected["run"].get(k)
    ]
    return out


@pytest.mark.parametrize("path", _v1_files(), ids=lambda p: p.stem)
def test_a_settings_file_of_the_release_loads_into_the_same_values(path, isolated_home):
    expected = json.loads(path.with_suffix(".expected.json").read_text(encoding="utf-8"))
    settings_path().parent.mkdir(parents=True, exist_ok=True)
    assert _differences(path, expected) == []
    # written back and read again, nothing changes
    before = load_settings()
    save_settings(before)
    assert load_settings() == before


def test_positive_control_a_changed_value_is_seen(isolated_home, tmp_path):
    path = V1 / "v1-dialog-openai.json"
    expected = json.loads(path.with_suffix(".expected.json").read_text(encoding="utf-8"))
    tampered = tmp_path / path.name
    data = json.loads(path.read_text(encoding="utf-8"))
    data["max_minutes"] = 16
    tampered.write_text(json.dumps(data), encoding="utf-8")
    settings_path().parent.mkdir(parents=True, exist_ok=True)
    found = _differences(tampered, expected)
    assert "settings.max_minutes: 15 then, 16 now" in found
    assert any(f.startswith("run.max_minutes: 15") and f.endswith(", 16 now") for f in found)


def test_the_version_is_written_and_read(isolated_home, monkeypatch):
    save_settings(Settings())
    assert json.loads(settings_path().read_text(encoding="utf-8"))["version"] == 1
    seen: list[int] = []

    def v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
        """As if version 1 had called the writing model "model"."""
        seen.append(1)
        data["write_model"] = data.pop("model", data.get("write_model"))
        return data

    def v2_to_v3(data: dict[str, Any]) -> dict[str, Any]:
        seen.append(2)
        data["reflect"] = data.pop("rounds", data.get("reflect"))
        return data

    monkeypatch.setattr(saved, "SETTINGS_VERSION", 3)
    monkeypatch.setattr(saved, "MIGRATIONS", (Migration(1, v1_to_v2), Migration(2, v2_to_v3)))
    for version in (1, None):  # a file without a version is a version 1 file
        data = {"model": "w-old", "rounds": 2, **({"version": version} if version else {})}
        settings_path().write_text(json.dumps(data), encoding="utf-8")
        s = load_settings()
        assert (s.write_model, s.reflect) == ("w-old", 2)
    assert seen == [1, 2, 1, 2]  # each migration once per load, in order
    seen.clear()
    settings_path().write_text(json.dumps({"version": 2, "model": "x", "rounds": 1}), "utf-8")
    s = load_settings()
    assert seen == [2] and s.write_model == Settings().write_model and s.reflect == 1
    # a file of a newer Labwright: read as far as understood, not migrated
    seen.clear()
    settings_path().write_text(json.dumps({"version": 9, "write_model": "w9", "new": 1}), "utf-8")
    assert load_settings().write_model == "w9" and seen == []
    save_settings(load_settings())
    assert json.loads(settings_path().read_text(encoding="utf-8"))["version"] == 3


def test_a_value_of_the_wrong_kind_falls_back_to_its_default_alone(isolated_home):
    settings_path().parent.mkdir(parents=True, exist_ok=True)
    settings_path().write_text(
        json.dumps({"version": 1, "max_minutes": "soon", "reflect": 11, "budget_tokens": 5}),
        encoding="utf-8",
    )
    s = load_settings()
    assert (s.max_minutes, s.reflect, s.budget_tokens) == (60.0, None, 5)


# -- settings/ has no hidden import cycle ---------------------------------------------------


def test_no_module_of_settings_imports_labwright_inside_a_function():
    found = []
    for path in sorted(SETTINGS_PKG.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(func):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("labwright"):
                    found.append(f"{path.name}:{node.lineno} {node.module}")
    assert found == []


def test_saved_does_not_import_resolve():
    tree = ast.parse((SETTINGS_PKG / "saved.py").read_text(encoding="utf-8"))
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert "labwright.core.settings.resolve" not in modules
    assert "labwright.core.settings.config" in modules  # positive control: the scan sees imports


def test_the_schema_refuses_what_cannot_be():
    with pytest.raises(ValueError, match="never saved"):
        Setting("k", Count(1), 1, "h", secret=True, saved=True)
    with pytest.raises(ValueError, match="default does not fit"):
        Setting("k", Count(1), 0, "h")
    with pytest.raises(ValueError, match="box"):
        replace(EXAMPLE.widget, group="nowhere")
