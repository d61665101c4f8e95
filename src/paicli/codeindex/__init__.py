"""The code index: symbols and chunks from tree-sitter, ranked by BM25 (SQLite FTS5), per project in the
home folder's `codeindex/`. Nothing happens at import; tree-sitter and its grammars load on the first parse."""
