"""read_image through the fake server: the image reaches the vision model, converted when needed."""

from __future__ import annotations

import base64
import io

from PIL import Image

from agent_helpers import (
    FINISH_ARGS,
    config_for,
    guard_kinds,
    of_type,
    route,
    run,
)
from fakes import FakeLLM, call, text, tool_calls


def _image_request(llm: FakeLLM) -> dict:
    return next(r for r in llm.requests if r["model"] == "fake-vision")


def _decode(url: str) -> Image.Image:
    head, data = url.split(",", 1)
    assert head.startswith("data:image/") and head.endswith(";base64")
    return Image.open(io.BytesIO(base64.b64decode(data)))


def _script(path: str):
    answers = iter(
        [
            tool_calls(call("read_image", {"path": path, "question": "What does the scope show?"})),
            text("A sine wave, 2 V peak to peak."),
            tool_calls(call("finish_exploration", FINISH_ARGS)),
        ]
    )
    return lambda body, n: next(answers)


def test_bmp_is_converted_to_png_and_sent_with_the_question(material, tmp_path):
    Image.new("RGB", (64, 48), (200, 10, 10)).save(material / "scope.bmp")
    with FakeLLM(route(_script("scope.bmp"))) as llm:
        events = run(config_for(llm, material, tmp_path / "run", vision_model="fake-vision"))
        assert "read_image" in llm.tool_names(0)
        content = _image_request(llm)["messages"][0]["content"]
        back = llm.requests[2]["messages"][-1]["content"]
    assert content[0] == {"type": "text", "text": "What does the scope show?"}
    img = _decode(content[1]["image_url"]["url"])
    assert img.format == "PNG" and img.size == (64, 48)
    assert "A sine wave" in back and "BMP, 64×48" in back
    roles = [e.role for e in of_type(events, "llm")]
    assert roles[:3] == ["explore", "vision", "explore"] and "vision" not in roles[3:]
    assert of_type(events, "done")[-1].status == "ok"  # an image answer is evidence


def test_large_images_are_downscaled(material, tmp_path):
    Image.new("RGB", (4000, 3000), (0, 80, 0)).save(material / "photo.jpg", quality=60)
    with FakeLLM(route(_script("photo.jpg"))) as llm:
        run(config_for(llm, material, tmp_path / "run", vision_model="fake-vision"))
        url = _image_request(llm)["messages"][0]["content"][1]["image_url"]["url"]
    assert max(_decode(url).size) == 1568


def test_broken_image_is_a_tool_error_not_a_crash(material, tmp_path):
    (material / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    script = [
        tool_calls(call("read_image", {"path": "broken.png", "question": "?"})),
        tool_calls(call("read_file", {"path": "manual.txt"})),
        tool_calls(call("finish_exploration", FINISH_ARGS)),
    ]
    with FakeLLM(route(script)) as llm:
        events = run(config_for(llm, material, tmp_path / "run", vision_model="fake-vision"))
        reply = llm.requests[1]["messages"][-1]["content"]
    first = of_type(events, "tool_result")[0]
    assert not first.ok and "not a readable image" in reply
    assert guard_kinds(events) == []


def test_read_image_is_not_offered_without_a_vision_model(material, tmp_path):
    with FakeLLM(
        route(
            [
                tool_calls(call("read_file", {"path": "manual.txt"})),
                tool_calls(call("finish_exploration", FINISH_ARGS)),
            ]
        )
    ) as llm:
        run(config_for(llm, material, tmp_path / "run"))
        assert "read_image" not in llm.tool_names(0)
