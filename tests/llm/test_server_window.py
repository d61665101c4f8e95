"""Where servers say their context size (llm/window_forms.py), and the probe that asks a server for it."""

from __future__ import annotations

from paicli.llm import window_forms
from paicli.llm.probe import probe_local, server_window
from paicli.llm.window_forms import ServerWindow
from paicli.testing.openai_server import FakeOpenAIServer
from paicli.testing.server_limits import ServerLimits

LLAMA_CPP = {  # what llama.cpp's llama-server answered in issue 40 (abridged)
    "object": "list",
    "data": [
        {
            "id": "gemma-3-270m",
            "aliases": ["gemma-3-270m"],
            "owned_by": "llamacpp",
            "meta": {"vocab_type": 1, "n_ctx": 8192, "n_ctx_train": 32768, "n_params": 268098176},
        }
    ],
}


def test_llama_cpp_reports_the_context_it_was_started_with_not_the_trained_one() -> None:
    assert window_forms.from_listing(LLAMA_CPP, "gemma-3-270m") == ServerWindow(8192, "llama.cpp meta.n_ctx")


def test_vllm_and_routers_name_it_per_model() -> None:
    vllm = {"data": [{"id": "a", "max_model_len": 32768}, {"id": "b", "max_model_len": 4096}]}
    assert window_forms.from_listing(vllm, "b") == ServerWindow(4096, "vLLM max_model_len")
    assert window_forms.from_listing(vllm, "c") is None  # two models listed, neither is it
    router = {"data": [{"id": "org/model", "context_length": 131072}]}
    assert window_forms.from_listing(router, "org/model") == ServerWindow(131072, "context_length")
    assert window_forms.from_listing({"data": [{"id": "x"}]}, "x") is None
    assert window_forms.from_listing({"data": "nonsense"}, "x") is None


def test_ollama_and_lm_studio_forms() -> None:
    running = {"models": [{"name": "qwen2.5:7b", "model": "qwen2.5:7b", "context_length": 16384}]}
    assert window_forms.from_ollama_ps(running, "qwen2.5:7b") == ServerWindow(16384, "Ollama context_length")
    shown = {
        "parameters": 'stop "<|im_end|>"\nnum_ctx 32768\n',
        "model_info": {"qwen2.context_length": 131072},
    }
    assert window_forms.from_ollama_show(shown) == ServerWindow(32768, "Ollama num_ctx")
    assert (
        window_forms.from_ollama_show({"model_info": {"qwen2.context_length": 131072}}) is None
    )  # trained only
    loaded = {"id": "m", "loaded_context_length": 8192, "max_context_length": 131072}
    assert window_forms.from_lmstudio(loaded) == ServerWindow(8192, "LM Studio loaded_context_length")
    assert window_forms.from_lmstudio({"id": "m", "max_context_length": 131072}) == ServerWindow(
        131072, "LM Studio max_context_length"
    )
    props = {"default_generation_settings": {"n_ctx": 4096}, "total_slots": 1}
    assert window_forms.from_llamacpp_props(props) == ServerWindow(4096, "llama.cpp /props n_ctx")


def test_the_probe_reads_the_listing_of_a_server_that_reports_n_ctx() -> None:
    with FakeOpenAIServer(limits=ServerLimits(n_ctx=9000)) as server:
        assert server_window(server.base_url, None, "fake-model") == ServerWindow(
            9000, "llama.cpp meta.n_ctx"
        )
        assert server.gets == ["/v1/models"]  # found in the listing: nothing else asked
        local = probe_local("llama.cpp", server.port, timeout=30)
        assert local is not None and window_forms.from_listing(local.listing, "fake-model") is not None


def test_a_server_that_does_not_say_is_asked_on_its_native_routes_only_when_local() -> None:
    with FakeOpenAIServer() as server:
        assert server_window(server.base_url, None, "fake-model", native=False) is None
        assert server.gets == ["/v1/models"]
        assert server_window(server.base_url, None, "fake-model") is None
        assert server.gets[1:] == ["/v1/models", "/props", "/api/ps", "/api/v0/models/fake-model"]
