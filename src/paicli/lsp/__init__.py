"""Language servers for diagnostics after the agent writes a file (spec 8.1 6b): started lazily per language,
spoken to over stdio with LSP's JSON-RPC framing, stopped at exit, never given paicli's keys."""
