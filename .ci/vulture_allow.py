# Names the dead-code check (vulture, in .ci/run) must not report, each with why. Not imported by anything.
# ruff: noqa
_ = object()

# Called by a framework or the interpreter, never by our code by name.
_.from_files  # McpSession from the files alone (the MCP tests); compose reads the config first, to load MCP only for a server
_.model_config  # pydantic configuration
_._window_in_range, _._defaults, _._utc  # pydantic validators
_.lora_id, _.finish_reason, _.skipped_lines, _.keyword_score, _.old_mode, _.new_mode  # parsed/recorded fields
_.idempotent, _.open_world  # MCP tool hints kept on the spec as read (tools/schema.py)
_.peak_mib  # a benchmark's recorded figure
_.facts_kept  # the long-session bench's fact check, which its test runs against the bench's fake summarisers
_.FILE_WRITE, _.COMMAND, _.PLAN, _.TEAM_PLANNER, _.TEAM_WORKER, _.TEAM_REVIEWER  # enum members, chosen by value
_.get_completions, _.complete_event, _.is_soft_wrap, _.ttimeoutlen, _.timeoutlen  # prompt_toolkit
_._give_up, _._other, _._newline, _._paste, _._expand_folded, _._tab, _._next_mode, _._paste_image  # key bindings
_.handle_starttag, _.handle_startendtag, _.handle_endtag, _.handle_data, _.attrs  # html.parser
_.http_open, _.https_open, _._create_connection  # urllib handler protocol
_.do_GET, _.do_POST, _.log_message, _.protocol_version, _.daemon_threads  # http.server (evals/realmodel_proxy.py)
_.server_version, _.close_connection  # http.server, read by BaseHTTPRequestHandler (cli/runtime_api.py)
_.team_notes  # an MCP tool, registered by its decorator (evals/memory_evolution/poison_mcp.py)
_.whitespace_split  # shlex setting
_.initialized  # jieba's tokenizer state, set from outside
_.avgdl  # BM25's figure, read by its scoring
_.tb  # __exit__ protocol
_.mtime_ns  # part of an lru_cache key (config/keys.py)
_.with_command  # extending a command table (skills, users' own tables; tests/cli/test_command_table.py)
_.waiting  # the renderer's current wait line, read by tests/cli/test_wait_spinner.py
_.served, _.broken, _.saves  # counters and states the sandbox and vector-file tests observe
_.readings_parsed  # owner readings a process parsed, observed by tests/retrieval/test_owner_readings.py

# Known dead: only their own tests keep them alive. Left for the owners of context/ and memory/, who are
# changing these modules (issues 37-39); remove each with the tests that use only it.
_.clear_now  # context/clearing.py
_.command_capture_limit, _.command_output_for_context  # context/offload.py
_.store_extracted  # memory/extractor.py
_.list_visible  # memory/manager.py
_.get_by_type  # memory/store.py
_.build_index  # memory/vector.py
_.fixed_clock  # memory/clock.py (a test clock)
_.cached_input_tokens  # paicli.sdk's public Usage field, read by SDK users
