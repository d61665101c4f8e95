"""Protocol strings of compaction's own messages (spec preface: kept byte for byte), and the lines with which
a note or a summary lists the user's words."""

from __future__ import annotations

SUMMARY_PREFIX = "[已压缩的历史对话摘要]"
ACKNOWLEDGEMENT = "好的，我已了解之前的上下文，请继续。"
NOTE_PREFIX = "[已省略的早期对话]"
DECISIONS_HEADING = "## 用户要求与已确认决定"
REQUESTS_LINE = "用户说过的话（原文，按时间先后）："
# A summary that left some of the user's words out carries them after this line (summary_words).
SUMMARY_WORDS_LINE = "用户说过的话（原文，摘要里没有写到的，按时间先后）："
DECISIONS_LINE = "此前记录的用户要求与已确认决定："
COUNTS_START = "移出的"  # the line after the lists (dropped-counts in dropped.md)
