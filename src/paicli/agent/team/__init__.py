"""Team mode (spec 8.5): a planner, two workers and reviewers, each a Conversation of its own on the shared
loop core; pure parsing, review and scheduling decisions beside the orchestrator that runs them."""
