"""The OS sandbox for commands that run without a human's yes (Landlock, user/network/PID namespaces).

Imported only when a command runs or the banner/`/config` describe it: nothing here loads at start-up.
"""
