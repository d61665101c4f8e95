"""Plan-and-Execute (spec 8.4): pure plan values, parsing, graph decisions and the resume fold, plus the
orchestrator that runs tasks on the shared loop core."""
