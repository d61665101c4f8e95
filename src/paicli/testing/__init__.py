"""Fakes for tests, evals and users' own tests: a loopback OpenAI-compatible server, a scripted LLM, a REPL
backend, and helpers that run paicli as a subprocess against the fake server with an isolated home.

Nothing here is imported by paicli itself; it ships so that tests of code built on paicli need no copy."""
