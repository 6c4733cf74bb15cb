"""The provider presets (DeepSeek, OpenAI, local servers, ...) and which preset a URL is.

A preset is a server's URL, its model per role and the environment variables its key
may come from. Where a key may go is decided by the server it is sent to
(`provider_for_url`), never by where the URL came from (settings/resolve.py).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from labwright.core.step_words import Words


@dataclass(frozen=True)
class Provider:
    name: str
    base_url: str
    explore_model: str
    write_model: str
    vision_model: str | None
    key_env: tuple[str, ...]
    needs_key: bool = True
    label: str = ""  # the name people know it by ("Qwen (DashScope)")
    # Other base URLs of the same service (another region): they count as this preset,
    # for its key variable and its stored key.
    aliases: tuple[str, ...] = ()
    # What to do when a model rejects `tools` here: one sentence naming a model (or
    # the server option) that calls tools. Exploration is nothing but tool calls.
    tools_advice: str = ""
    # A server on this computer: the commands that start it and fetch the model, one a
    # line; "{model}" is the model to use (Settings' hint, doctor's fix).
    serve: tuple[str, ...] = ()

    @property
    def local(self) -> bool:
        """A server on this computer: no key, nothing leaves the machine."""
        return not self.needs_key


# Labwright's own key variable: the key for the server the person named (a flag,
# LABWRIGHT_BASE_URL, their settings). A preset's own variable (DEEPSEEK_API_KEY, ...) goes
# to that preset's server only; LABWRIGHT_API_KEY is the only one any other server gets.
GENERIC_KEY_ENV = ("LABWRIGHT_API_KEY",)
_LOCAL_KEYS = GENERIC_KEY_ENV  # a local server started with a key of its own

# The order here is the order of the app's provider list and of `run --help`.
PROVIDERS: dict[str, Provider] = {
    "deepseek": Provider(
        "deepseek",
        "https://api.deepseek.com/v1",
        "deepseek-chat",
        "deepseek-chat",
        None,
        ("LABWRIGHT_API_KEY", "DEEPSEEK_API_KEY"),
        label="DeepSeek",
        tools_advice="Use deepseek-chat, which calls tools.",
    ),
    "openai": Provider(
        "openai",
        "https://api.openai.com/v1",
        "gpt-4o-mini",
        "gpt-4o",
        "gpt-4o-mini",
        ("LABWRIGHT_API_KEY", "OPENAI_API_KEY"),
        label="OpenAI",
        tools_advice="Use a model that calls tools, e.g. gpt-4o-mini.",
    ),
    # DashScope's OpenAI-compatible mode (Beijing; the international endpoint is an alias).
    "qwen": Provider(
        "qwen",
        "https://dashscope.aliyuncs.com/compatible-mode/v1",
        "qwen-plus",
        "qwen-max",
        "qwen-vl-plus",
        ("LABWRIGHT_API_KEY", "DASHSCOPE_API_KEY"),
        label="Qwen (DashScope)",
        aliases=("https://dashscope-intl.aliyuncs.com/compatible-mode/v1",),
        tools_advice="Use a Qwen model that calls tools, e.g. qwen-plus.",
    ),
    "moonshot": Provider(
        "moonshot",
        "https://api.moonshot.cn/v1",
        "kimi-k2.6",
        "kimi-k2.6",
        "moonshot-v1-32k-vision-preview",
        ("LABWRIGHT_API_KEY", "MOONSHOT_API_KEY"),
        label="Moonshot (Kimi)",
        aliases=("https://api.moonshot.ai/v1",),
        tools_advice="Use a Kimi model that calls tools, e.g. kimi-k2.6.",
    ),
    "siliconflow": Provider(
        "siliconflow",
        "https://api.siliconflow.cn/v1",
        "deepseek-ai/DeepSeek-V3",
        "deepseek-ai/DeepSeek-V3",
        "Qwen/Qwen2.5-VL-72B-Instruct",
        ("LABWRIGHT_API_KEY", "SILICONFLOW_API_KEY"),
        label="SiliconFlow",
        aliases=("https://api.siliconflow.com/v1",),
        tools_advice=(
            "Use a model listed with function calling in SiliconFlow's model list, "
            "e.g. deepseek-ai/DeepSeek-V3."
        ),
    ),
    "openrouter": Provider(
        "openrouter",
        "https://openrouter.ai/api/v1",
        "openai/gpt-4o-mini",
        "openai/gpt-4o",
        "openai/gpt-4o-mini",
        ("LABWRIGHT_API_KEY", "OPENROUTER_API_KEY"),
        label="OpenRouter",
        tools_advice=(
            "Use a model that supports tools (openrouter.ai/models?supported_parameters=tools), "
            "e.g. openai/gpt-4o-mini."
        ),
    ),
    # Servers on this computer. They need no key; their model names are what the person
    # loaded, so the defaults are a common model that calls tools (llama.cpp's server
    # serves the one model it was started with, whatever the name).
    "ollama": Provider(
        "ollama",
        "http://localhost:11434/v1",
        "qwen2.5:7b",
        "qwen2.5:7b",
        None,
        _LOCAL_KEYS,
        needs_key=False,
        label="Ollama",
        tools_advice=(
            "Use a model with tool support (marked “tools” on ollama.com), "
            "e.g. `ollama pull qwen2.5:7b`."
        ),
        serve=("ollama serve", "ollama pull {model}"),
    ),
    "lmstudio": Provider(
        "lmstudio",
        "http://localhost:1234/v1",
        "qwen2.5-7b-instruct",
        "qwen2.5-7b-instruct",
        None,
        _LOCAL_KEYS,
        needs_key=False,
        label="LM Studio",
        tools_advice="Load a model with tool support in LM Studio, e.g. qwen2.5-7b-instruct.",
        # LM Studio's own command line (or its Developer tab: Start Server)
        serve=("lms server start", "lms get {model}", "lms load {model}"),
    ),
    "llamacpp": Provider(
        "llamacpp",
        "http://localhost:8080/v1",
        "default",
        "default",
        None,
        _LOCAL_KEYS,
        needs_key=False,
        label="llama.cpp server",
        tools_advice=(
            "Start llama-server with --jinja (tool calls go through the model's chat "
            "template), with a model that calls tools, e.g. Qwen2.5-7B-Instruct."
        ),
        # one model per server, whatever name is asked for: -m names its .gguf file
        serve=("llama-server --jinja -m MODEL.gguf --port 8080",),
    ),
    "vllm": Provider(
        "vllm",
        "http://localhost:8000/v1",
        "Qwen/Qwen2.5-7B-Instruct",
        "Qwen/Qwen2.5-7B-Instruct",
        None,
        _LOCAL_KEYS,
        needs_key=False,
        label="vLLM",
        tools_advice=(
            "Start vLLM with --enable-auto-tool-choice --tool-call-parser hermes "
            "(or the parser for your model)."
        ),
        serve=("vllm serve {model} --enable-auto-tool-choice --tool-call-parser hermes",),
    ),
}
DEFAULT_PROVIDER = "deepseek"
CUSTOM = "custom"  # the provider name of "any OpenAI-compatible URL"
PROVIDER_NAMES: tuple[str, ...] = (*PROVIDERS, CUSTOM)  # what --provider accepts
CUSTOM_TOOLS_ADVICE = "Use a model that supports tool (function) calling."


def serve_commands(provider: str, model: str | None = None) -> tuple[str, ...]:
    """The commands that start the local server `provider` with `model` (its preset's
    exploring model by default); () for a server elsewhere."""
    preset = PROVIDERS.get(provider)
    if preset is None:
        return ()
    return tuple(c.replace("{model}", model or preset.explore_model) for c in preset.serve)


def unknown_provider(name: str) -> Words:
    """The message for a provider name that is not a preset, listing those that are."""
    return Words("unknown_provider", name=repr(name), names=", ".join(PROVIDER_NAMES))


_LOOPBACK = {"localhost", "127.0.0.1", "::1"}


def _url_parts(url: str) -> tuple[str, str, int | None, str]:
    """(scheme, host, port, path) with loopback names alike, default ports filled in."""
    try:
        u = urlsplit(url.strip())
        port = u.port
    except ValueError:
        return ("", url, None, "")
    host = (u.hostname or "").lower()
    host = "localhost" if host in _LOOPBACK else host
    scheme = u.scheme.lower()
    port = port or {"http": 80, "https": 443}.get(scheme)
    return scheme, host, port, u.path.rstrip("/")


def _same_service(url: str, preset_url: str) -> bool:
    """`url` is on the preset's server, under its API path (…/v1 itself optional)."""
    a, b = _url_parts(url), _url_parts(preset_url)
    if a[:3] != b[:3]:
        return False
    root = b[3].removesuffix("/v1")
    return a[3] == root or a[3].startswith(root + "/")


def same_server(a: str | None, b: str | None) -> bool:
    """`a` and `b` are one API endpoint: scheme, host, port and path alike (loopback
    names alike, default ports filled in, a trailing "/" and any userinfo ignored)."""
    if not (isinstance(a, str) and isinstance(b, str) and a.strip() and b.strip()):
        return False
    return _url_parts(a) == _url_parts(b)


def provider_for_url(base_url: str | None) -> Provider:
    """The preset whose URL (or an alias) matches, else a custom server: DeepSeek's model
    names, and no key variable but LABWRIGHT_API_KEY (DeepSeek's key is not its to take)."""
    if not base_url:
        return PROVIDERS[DEFAULT_PROVIDER]
    for p in PROVIDERS.values():
        if any(_same_service(base_url, url) for url in (p.base_url, *p.aliases)):
            return p
    return replace(
        PROVIDERS[DEFAULT_PROVIDER],
        name=CUSTOM,
        base_url=base_url,
        label="Custom",
        aliases=(),
        key_env=GENERIC_KEY_ENV,
        tools_advice=CUSTOM_TOOLS_ADVICE,
    )


def tools_advice(base_url: str | None, provider: str | None = None) -> str:
    """What to do when a model rejects tools (one sentence): the advice of the preset
    `provider` when it is one (at whatever URL), else of the preset the URL belongs to."""
    preset = PROVIDERS.get(provider or "") or provider_for_url(base_url)
    return preset.tools_advice or CUSTOM_TOOLS_ADVICE


def key_from_env(base_url: str | None = None) -> str | None:
    """The first API key found in the environment for the server at `base_url` (a
    preset's own variables for its server, LABWRIGHT_API_KEY alone for any other)."""
    for name in provider_for_url(base_url).key_env:
        value = os.environ.get(name)
        if value:
            return value
    return None
