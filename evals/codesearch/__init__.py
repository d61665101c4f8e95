"""The search_code golden set: a fixture repository and queries in English and Chinese (golden.json)."""
