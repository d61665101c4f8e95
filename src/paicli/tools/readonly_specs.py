"""Allow-lists for the read-only command rule: programs and, per program, the options that only read.

Data only. A long option must be spelt out exactly (GNU tools accept unique abbreviations, so
`--compress-prog` would be `--compress-program`); anything not listed needs approval. A short letter is
listed under `value` only when the program really takes a value for it (the rest of the cluster is then
that value); listing a flag as a value letter would hide the letters after it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Options:
    flags: str = ""  # short letters without a value
    value: str = ""  # short letters with a value (attached, or the next word)
    long: frozenset[str] = frozenset()  # long option names; `name=` may carry a value
    numeric: bool = False  # `-5`, `-20` (head, tail, grep, git log)
    any_args: bool = False  # every argument is harmless (echo, printf, test)


def _long(text: str) -> frozenset[str]:
    return frozenset(text.split())


_GREP = Options(
    flags="EFGPiyvwxcLloqsbHhnTZzaIrRU",
    value="efmABCdD",
    numeric=True,
    long=_long(
        "extended-regexp fixed-strings basic-regexp perl-regexp regexp file ignore-case no-ignore-case "
        "word-regexp line-regexp null-data no-messages invert-match max-count byte-offset line-number "
        "no-line-number line-buffered with-filename no-filename label only-matching quiet silent binary-files "
        "text directories devices recursive dereference-recursive include exclude exclude-from exclude-dir "
        "files-without-match files-with-matches count initial-tab null before-context after-context context "
        "color colour binary help version"
    ),
)
_SUMS = Options(
    flags="bctwz", long=_long("binary check text tag quiet status strict warn zero ignore-missing")
)

PROGRAMS: dict[str, Options] = {
    "ls": Options(
        flags="aAbBcCdDfFgGhHiklLmnNopqQrRsStuUvxXZ1",
        value="ITw",
        long=_long(
            "all almost-all author escape block-size ignore-backups color directory dired classify file-type "
            "format full-time group-directories-first no-group human-readable si dereference-command-line "
            "dereference-command-line-symlink-to-dir hide hyperlink indicator-style inode ignore kibibytes "
            "dereference literal numeric-uid-gid hide-control-chars show-control-chars quote-name quoting-style "
            "reverse recursive size sort time time-style tabsize width context zero help version"
        ),
    ),
    "cat": Options(
        flags="AbeEnstTuv",
        long=_long("show-all number-nonblank show-ends number squeeze-blank show-tabs show-nonprinting help"),
    ),
    "head": Options(
        flags="qvz", value="nc", numeric=True, long=_long("bytes lines quiet silent verbose zero-terminated")
    ),
    "tail": Options(
        flags="qvz", value="nc", numeric=True, long=_long("bytes lines quiet silent verbose zero-terminated")
    ),
    "wc": Options(
        flags="clmwL", long=_long("bytes chars lines words max-line-length files0-from total help")
    ),
    "grep": _GREP,
    "egrep": _GREP,
    "fgrep": _GREP,
    "rg": Options(
        flags="aciFHhIlLnNopPqsSuUvwx0.",
        value="ABCdefgmMrtTEj",
        long=_long(
            "after-context before-context context binary case-sensitive color colors column no-column count "
            "count-matches crlf encoding engine regexp file files files-with-matches files-without-match "
            "fixed-strings follow glob iglob glob-case-insensitive heading no-heading hidden no-hidden "
            "ignore-case ignore-file no-ignore no-ignore-vcs no-ignore-dot no-ignore-parent no-ignore-global "
            "invert-match json line-number no-line-number line-regexp max-columns max-columns-preview "
            "max-count max-depth max-filesize multiline multiline-dotall null null-data only-matching "
            "passthru pcre2 pretty quiet replace smart-case sort sortr stats text threads trim type type-not "
            "type-list unrestricted vimgrep with-filename no-filename word-regexp help version"
        ),
    ),
    "pwd": Options(flags="LP"),
    "echo": Options(any_args=True),
    "printf": Options(any_args=True),
    "true": Options(any_args=True),
    "false": Options(any_args=True),
    "test": Options(any_args=True),
    "[": Options(any_args=True),
    "which": Options(flags="a"),
    "whoami": Options(),
    "uname": Options(
        flags="asnrvmpio",
        long=_long(
            "all kernel-name nodename kernel-release kernel-version machine processor hardware-platform "
            "operating-system"
        ),
    ),
    "id": Options(flags="agGnrzZ", long=_long("context group groups name real user zero")),
    "type": Options(flags="aftpP"),
    "stat": Options(
        flags="LftZ", value="c", long=_long("dereference file-system format printf terse cached")
    ),
    "file": Options(
        flags="bhiLNnps0Sk",
        value="eFmfP",
        long=_long(
            "brief mime mime-type mime-encoding dereference no-dereference separator files-from magic-file "
            "no-pad preserve-date special-files keep-going raw print0 exclude parameter help"
        ),
    ),
    "du": Options(
        flags="0abcDhHkLlmPSsx",
        value="BdtX",
        long=_long(
            "null all apparent-size block-size bytes total dereference-args human-readable inodes "
            "dereference count-links max-depth no-dereference separate-dirs si summarize threshold time "
            "time-style exclude-from exclude one-file-system files0-from"
        ),
    ),
    "df": Options(
        flags="ahHiklPTv",
        value="Btx",
        long=_long(
            "all block-size human-readable si inodes local no-sync sync output portability print-type type "
            "exclude-type total"
        ),
    ),
    "cut": Options(
        flags="nsz",
        value="bcdf",
        long=_long(
            "bytes characters delimiter fields complement only-delimited output-delimiter zero-terminated"
        ),
    ),
    "diff": Options(
        flags="abBdeEinNpqrstTuwyZ",
        value="CDFIUWxXS",
        long=_long(
            "normal brief report-identical-files context unified ed rcs side-by-side width left-column "
            "suppress-common-lines show-c-function show-function-line label expand-tabs initial-tab "
            "suppress-blank-empty recursive no-dereference new-file unidirectional-new-file ignore-file-name-case "
            "no-ignore-file-name-case exclude exclude-from starting-file from-file to-file ignore-case "
            "ignore-tab-expansion ignore-trailing-space ignore-space-change ignore-all-space ignore-blank-lines "
            "ignore-matching-lines text strip-trailing-cr minimal horizon-lines speed-large-files color "
            "palette help version"
        ),
    ),
    "cmp": Options(
        flags="blsz", value="in", long=_long("print-bytes ignore-initial verbose bytes quiet silent")
    ),
    "basename": Options(flags="az", value="s", long=_long("multiple suffix zero")),
    "dirname": Options(flags="z", long=_long("zero")),
    "realpath": Options(
        flags="eEmLPqsz",
        long=_long(
            "canonicalize-existing canonicalize-missing logical physical quiet relative-to relative-base strip no-symlinks zero"
        ),
    ),
    "readlink": Options(
        flags="efmnqsvz",
        long=_long(
            "canonicalize canonicalize-existing canonicalize-missing no-newline quiet silent verbose zero"
        ),
    ),
    "nl": Options(
        flags="p",
        value="bdfhilnsvw",
        long=_long(
            "body-numbering section-delimiter footer-numbering header-numbering line-increment join-blank-lines "
            "number-format no-renumber number-separator starting-line-number number-width"
        ),
    ),
    "md5sum": _SUMS,
    "sha1sum": _SUMS,
    "sha256sum": _SUMS,
    "sha512sum": _SUMS,
    "tree": Options(
        flags="adflxpsugDFqNQrtvUCAShJXn",
        value="LIPT",
        long=_long(
            "noreport dirsfirst gitignore charset filelimit prune du si sort matchdirs ignore-case timefmt help version"
        ),
    ),
    "sort": Options(
        flags="bdfgiMhnRrVcCmsuz",
        value="ktS",
        long=_long(
            "ignore-leading-blanks dictionary-order ignore-case general-numeric-sort ignore-nonprinting "
            "month-sort human-numeric-sort numeric-sort random-sort random-source reverse version-sort sort "
            "check merge stable unique zero-terminated key field-separator buffer-size parallel debug "
            "files0-from"
        ),
    ),
    "date": Options(
        flags="uRI",
        value="dfr",
        long=_long("date file iso-8601 rfc-email rfc-3339 reference utc universal debug"),
    ),
    "cd": Options(flags="LP"),
}

# find: primaries with no argument and with one argument; everything else (-exec, -delete, -fprint, …) asks.
FIND_FLAGS = frozenset(
    [
        "-print",
        "-print0",
        "-ls",
        "-prune",
        "-quit",
        "-true",
        "-false",
        "-empty",
        "-readable",
        "-writable",
        "-executable",
        "-nouser",
        "-nogroup",
        "-depth",
        "-follow",
        "-xdev",
        "-mount",
        "-daystart",
        "-noleaf",
        "-not",
        "-and",
        "-a",
        "-or",
        "-o",
        "-ignore_readdir_race",
        "-noignore_readdir_race",
        "(",
        ")",
        "!",
        ",",
    ]
)
FIND_WITH_VALUE = frozenset(
    [
        "-name",
        "-iname",
        "-path",
        "-ipath",
        "-wholename",
        "-iwholename",
        "-lname",
        "-ilname",
        "-regex",
        "-iregex",
        "-type",
        "-xtype",
        "-maxdepth",
        "-mindepth",
        "-size",
        "-mtime",
        "-mmin",
        "-atime",
        "-amin",
        "-ctime",
        "-cmin",
        "-newer",
        "-anewer",
        "-cnewer",
        "-perm",
        "-user",
        "-group",
        "-uid",
        "-gid",
        "-links",
        "-inum",
        "-samefile",
        "-printf",
        "-used",
        "-regextype",
        "-fstype",
    ]
)

_DIFF_LONG = (
    "patch no-patch unified stat numstat shortstat dirstat summary patch-with-stat name-only name-status "
    "raw no-color color word-diff word-diff-regex color-words color-moved no-renames find-renames "
    "find-copies diff-filter ignore-space-at-eol ignore-space-change ignore-all-space ignore-blank-lines "
    "ignore-cr-at-eol function-context exit-code quiet no-ext-diff no-textconv ignore-submodules "
    "src-prefix dst-prefix no-prefix relative text minimal patience histogram anchored abbrev full-index "
    "binary check compact-summary inter-hunk-context"
)
_LOG_LONG = (
    "oneline graph decorate no-decorate all branches tags remotes format pretty since after until before "
    "author committer grep all-match invert-grep regexp-ignore-case max-count skip merges no-merges "
    "first-parent follow reverse date abbrev-commit no-abbrev-commit relative-date left-right cherry-pick "
    "topo-order date-order author-date-order full-history simplify-by-decoration source log-size "
    "max-parents min-parents no-walk walk-reflogs"
)
GIT_GLOBAL_FLAGS = frozenset(
    {"--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--no-replace-objects"}
)
GIT_SUBCOMMANDS: dict[str, Options] = {
    "status": Options(
        flags="sbvz",
        long=_long(
            "short branch porcelain long verbose untracked-files ignored ignore-submodules column no-column "
            "ahead-behind no-ahead-behind renames no-renames find-renames show-stash null"
        ),
    ),
    "log": Options(flags="pusRwbaz", value="nSG", numeric=True, long=_long(_DIFF_LONG + " " + _LOG_LONG)),
    "show": Options(flags="pusRwbaz", value="SG", long=_long(_DIFF_LONG + " " + _LOG_LONG)),
    "diff": Options(
        flags="pusRwbaz", value="SG", long=_long(_DIFF_LONG + " cached staged merge-base no-index")
    ),
    "blame": Options(
        flags="bcfenpstwM",
        value="L",
        long=_long(
            "root show-stats porcelain line-porcelain incremental show-name show-number show-email date abbrev"
        ),
    ),
    "ls-files": Options(
        flags="cdmoiksuvtzfe",
        value="x",
        long=_long(
            "cached deleted modified others ignored stage directory no-empty-directory unmerged killed "
            "exclude-standard exclude full-name recurse-submodules abbrev debug eol deduplicate format"
        ),
    ),
    "rev-parse": Options(
        flags="q",
        long=_long(
            "abbrev-ref short verify quiet show-toplevel show-prefix show-cdup git-dir git-common-dir "
            "absolute-git-dir is-inside-work-tree is-inside-git-dir is-bare-repository symbolic "
            "symbolic-full-name all branches tags remotes"
        ),
    ),
    "grep": Options(
        flags="aiIvwFEGPlLcnhHozq",
        value="efABCm",
        numeric=True,
        long=_long(
            "cached untracked no-index text ignore-case word-regexp invert-match full-name extended-regexp "
            "basic-regexp fixed-strings perl-regexp line-number column files-with-matches name-only "
            "files-without-match count null break heading show-function function-context after-context "
            "before-context context max-depth max-count all-match and or not quiet recurse-submodules "
            "no-textconv"
        ),
    ),
}
