"""Where OpenAI-compatible servers say their context size, read from the JSON they answer with. Pure.

- llama.cpp's `llama-server`: `GET /v1/models` -> `data[].meta.n_ctx` (the size it was started with; older
  builds only in `GET /props` -> `default_generation_settings.n_ctx`);
- vLLM: `GET /v1/models` -> `data[].max_model_len`;
- Ollama: `GET /api/ps` -> `models[].context_length` of a loaded model, else `POST /api/show` -> `num_ctx` in
  its `parameters` (a model's trained length in `model_info` is not what the server gives it);
- LM Studio: `GET /api/v0/models/<id>` -> `loaded_context_length`, else `max_context_length`;
- routers and gateways that list a `context_length` / `context_window` per model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

_NUM_CTX = re.compile(r"(?m)^\s*num_ctx\s+(\d+)\s*$")
_LISTING_FIELDS = (
    ("max_model_len", "vLLM max_model_len"),
    ("loaded_context_length", "LM Studio loaded_context_length"),
    ("context_length", "context_length"),
    ("context_window", "context_window"),
    ("max_context_length", "max_context_length"),
)


@dataclass(frozen=True)
class ServerWindow:
    tokens: int
    source: str  # where it was read, for the user: "llama.cpp meta.n_ctx", "vLLM max_model_len", …


def _positive(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _entry_for(items: Any, model: str) -> Mapping[str, Any] | None:
    """The listed entry of `model` (by id or alias); the only entry when the server lists just one."""
    if not isinstance(items, list):
        return None
    entries = [item for item in items if isinstance(item, Mapping)]
    for entry in entries:
        aliases = entry.get("aliases")
        names = {entry.get("id"), entry.get("model"), entry.get("name")}
        if model in names or (isinstance(aliases, list) and model in aliases):
            return entry
    return entries[0] if len(entries) == 1 else None


def from_listing(data: Any, model: str) -> ServerWindow | None:
    """A `GET /v1/models` answer (llama.cpp, vLLM, routers)."""
    entry = _entry_for(data.get("data") if isinstance(data, Mapping) else None, model)
    if entry is None:
        return None
    meta = entry.get("meta")
    n_ctx = _positive(meta.get("n_ctx")) if isinstance(meta, Mapping) else None
    if n_ctx:
        return ServerWindow(n_ctx, "llama.cpp meta.n_ctx")
    for key, source in _LISTING_FIELDS:
        value = _positive(entry.get(key))
        if value:
            return ServerWindow(value, source)
    return None


def from_llamacpp_props(data: Any) -> ServerWindow | None:
    """llama.cpp's `GET /props`."""
    settings = data.get("default_generation_settings") if isinstance(data, Mapping) else None
    n_ctx = _positive(settings.get("n_ctx")) if isinstance(settings, Mapping) else None
    return ServerWindow(n_ctx, "llama.cpp /props n_ctx") if n_ctx else None


def from_ollama_ps(data: Any, model: str) -> ServerWindow | None:
    """Ollama's `GET /api/ps`: the context a loaded model runs with."""
    entry = _entry_for(data.get("models") if isinstance(data, Mapping) else None, model)
    value = _positive(entry.get("context_length")) if entry is not None else None
    return ServerWindow(value, "Ollama context_length") if value else None


def from_ollama_show(data: Any) -> ServerWindow | None:
    """Ollama's `POST /api/show`: `num_ctx` when the model file sets it."""
    parameters = data.get("parameters") if isinstance(data, Mapping) else None
    found = _NUM_CTX.search(parameters) if isinstance(parameters, str) else None
    return ServerWindow(int(found.group(1)), "Ollama num_ctx") if found and int(found.group(1)) else None


def from_lmstudio(data: Any) -> ServerWindow | None:
    """LM Studio's `GET /api/v0/models/<id>`."""
    if not isinstance(data, Mapping):
        return None
    loaded = _positive(data.get("loaded_context_length"))
    if loaded:
        return ServerWindow(loaded, "LM Studio loaded_context_length")
    most = _positive(data.get("max_context_length"))
    return ServerWindow(most, "LM Studio max_context_length") if most else None
