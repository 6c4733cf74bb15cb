"""Write the v1-*.json settings files as a Labwright release writes them, and what it
loads from each (v1-*.expected.json): tests/test_settings_schema.py checks that today's
code loads them into the same values.

Run with the release's code, never today's (these files are its record):

    git worktree add /tmp/lw-v1 c57c41e
    PYTHONPATH=/tmp/lw-v1/desktop PYTHON_KEYRING_BACKEND=keyring.backends.fail.Keyring \
        .venv/bin/python tests/data/settings/make_v1.py

Each file is what `save_settings()` wrote for settings a person makes: the app's first
start (all defaults), the Settings dialog after choosing a preset and filling every
field, a custom server (a key typed into its URL, which is never written), and a local
server with a time limit of its own.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
MATERIAL = "/material"  # resolve_config needs a folder; it is not read


def cases():
    from labwright.core.settings.saved import Settings, preset_settings

    yield "first-start", Settings()
    dialog = preset_settings("openai", Settings())
    dialog.write_model = "gpt-4.1"
    dialog.template, dialog.report_lang, dialog.reflect = "lab-zh", "zh", 0
    dialog.budget_tokens, dialog.max_minutes = 150_000, 15
    dialog.prices = {
        "gpt-4.1": {"prompt": 2.0, "completion": 8.0},
        "gpt-4o-mini": {"prompt": 0.15, "completion": 0.6},
    }
    dialog.ui_language = "zh_CN"
    dialog.recent_folders = ["/home/student/lab3", "/home/student/lab2"]
    yield "dialog-openai", dialog
    custom = Settings(
        provider="custom",
        base_url="https://student:sk-typed-into-the-url@models.example/v1",
        explore_model="m-explore",
        write_model="m-write",
        vision_model="m-vision",
        template="lab-en",
        report_lang="en",
        reflect=3,
        ui_language="en",
        budget_tokens=200_000,
        max_minutes=60,
        prices={"m-write": {"prompt": 0.27, "completion": 1.1}},
        recent_folders=["/data/a"],
    )
    yield "custom-server", custom
    local = preset_settings("ollama", Settings())
    local.explore_model = local.write_model = "llama3.1:8b"
    local.max_minutes = 240
    yield "local-ollama", local


def main() -> None:
    from labwright.core.settings.resolve import resolve_config
    from labwright.core.settings.saved import load_settings, save_settings, settings_path

    home = Path(tempfile.mkdtemp())
    os.environ["LABWRIGHT_HOME"] = str(home)
    for name in [k for k in os.environ if k.endswith("_API_KEY") or k == "LABWRIGHT_BASE_URL"]:
        del os.environ[name]
    try:
        for name, settings in cases():
            save_settings(settings)
            shutil.copyfile(settings_path(), HERE / f"v1-{name}.json")
            loaded = load_settings()
            run = resolve_config(Path(MATERIAL), settings=loaded, env={}).public_dict()
            expected = {"settings": asdict(loaded), "run": run}
            text = json.dumps(expected, indent=1, ensure_ascii=False) + "\n"
            (HERE / f"v1-{name}.expected.json").write_text(text, encoding="utf-8")
            print(f"wrote v1-{name}.json", file=sys.stderr)
    finally:
        shutil.rmtree(home)


if __name__ == "__main__":
    main()
