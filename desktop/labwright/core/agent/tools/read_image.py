"""read_image: ask the vision model about a photo or a scope screenshot."""

from __future__ import annotations

import base64
import io
from typing import Any

from labwright.core.agent.tools.base import (
    Tool,
    ToolContext,
    ToolOutcome,
    ToolTraits,
    error,
    missing,
    open_target,
    rel_key,
    str_arg,
)
from labwright.core.events import LLMCall
from labwright.core.llm.client import LLMError
from labwright.core.material.fence import Opened
from labwright.core.material.workspace import safe_name
from labwright.core.step_words import Words

MAX_SIDE = 1568  # what vision APIs resample to anyway; more only costs tokens
MAX_PIXELS = 80_000_000  # beyond this Pillow would refuse it as a decompression bomb
PASS_THROUGH = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp", "GIF": "image/gif"}


def encode_image(src: Opened) -> tuple[str, str]:
    """(data URL, facts) — BMP/TIFF converted to PNG, large images downscaled.

    Decoded and sent from the one descriptor opened beneath the folder.
    """
    from PIL import Image, UnidentifiedImageError

    try:
        with src.stream() as f, Image.open(f) as im:
            fmt = im.format or "unknown"
            width, height = im.size
            if width * height > MAX_PIXELS:
                raise ValueError(f"the image is too large to send ({width}×{height} pixels)")
            facts = f"{fmt}, {width}×{height} pixels, mode {im.mode}"
            if fmt in PASS_THROUGH and max(width, height) <= MAX_SIDE:
                data, mime = src.read_bytes(), PASS_THROUGH[fmt]
            else:
                im.load()
                img = im.convert("RGBA" if im.mode in ("RGBA", "LA", "P") else "RGB")
                img.thumbnail((MAX_SIDE, MAX_SIDE))
                buf = io.BytesIO()
                img.save(buf, format="PNG", optimize=True)
                data, mime = buf.getvalue(), "image/png"
                if img.size != (width, height):
                    facts += f", sent downscaled to {img.size[0]}×{img.size[1]}"
    except (UnidentifiedImageError, OSError, SyntaxError, Image.DecompressionBombError) as e:
        raise ValueError(f"the file is not a readable image ({type(e).__name__})") from None
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}", facts


class ReadImage(Tool):
    name = "read_image"
    description = (
        "Look at an image of the material (photo of the setup, oscilloscope screenshot, "
        "plot) and answer a question about it with a vision model."
    )
    parameters = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "Image path relative to the root."},
            "question": {"type": "string", "description": "What to look for in the image."},
        },
        "required": ["path", "question"],
    }
    traits = ToolTraits(concurrency_safe=True, reads=True)

    def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        rel = str_arg(args, "path")
        question = str_arg(args, "question", "Describe this image for a lab report.")
        shown = safe_name(rel, escape_backslash=False)
        opened = open_target(ctx, rel, shown, "file")
        if isinstance(opened, ToolOutcome):
            return opened
        with opened:
            if opened.is_dir:
                return missing(ctx, shown, "file")
            if ctx.llm is None or not ctx.vision_model:
                return error(
                    Words("no_vision_model"),
                    "No vision model is configured; use read_file for the image's facts.",
                )
            try:
                url, facts = encode_image(opened)
            except ValueError as e:
                return error(
                    Words("cannot_read", path=rel, why=e),
                    f"Cannot read image '{rel}': {e}.",
                    fault="file",
                )
        messages = [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": question},
                    {"type": "image_url", "image_url": {"url": url}},
                ],
            }
        ]
        try:
            reply = ctx.llm.chat(
                model=ctx.vision_model, messages=messages, max_tokens=ctx.vision_max_tokens
            )
        except LLMError as e:
            return error(Words("vision_failed", path=rel), f"The vision model failed: {e}")
        event = LLMCall(
            "vision",
            reply.model,
            reply.prompt_tokens,
            reply.completion_tokens,
            reply.ms,
            reply.reasoning_tokens,
        )
        answer = reply.content.strip()
        return ToolOutcome(
            ok=True,
            content=f"[{rel} · image · {facts}]\n{answer}",
            summary=Words("image", path=rel, facts=facts),
            productive=bool(answer),
            coverage=(rel_key(ctx.root, opened.path), 0, 1),
            evidence={
                "path": rel,
                "kind": "image",
                "question": question,
                "text": answer,
                "facts": facts,
            },
            events=[event],
        )
