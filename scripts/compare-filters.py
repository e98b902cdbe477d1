#!/usr/bin/env python3
"""Measure Bouncer and two peer filters on the labelled evasion corpus, side by side.

    python3 scripts/compare-filters.py [--binary PATH] [--only bouncer] [--check] [--json FILE]

The corpus is Tests/corpus/evasions.jsonl (format in Tests/corpus/README.md); the word lists are
Tests/corpus/wordlists/<lang> (LDNOOBW, CC-BY-4.0). Every filter judges each text against the
list of the text's language only (`--lists all` gives every filter the union of the lists).

- Bouncer is measured through its HTTP API: the binary is started on a free loopback port with
  a temporary data directory, the lists are imported as `word` rules (entries with spaces as
  `phrase` rules) with action `bounce`, one channel per language (`corpus-en`, ...), and each
  text goes to `POST /v1/moderation/check` with its language's channel. A text is a hit when
  the answer's action is not "none". The server is stopped at the end.
- better-profanity 0.7.0 and glin-profanity 4.1.x run in a venv under .build/filters-venv,
  created and filled from PyPI the first time, each given the stored lists instead of its own.

Per category it prints recall on the hit cases and the false-alarm rate on the clean cases,
then totals and, for Bouncer, every miss and false alarm. `--check` exits 1 unless Bouncer's
recall is at least 95% in every evasion category and its false alarms are at most 1% overall.
`--lint` only checks the corpus against the word lists. Python 3.11 standard library only;
the peers' packages are installed into the venv, never into this interpreter.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unicodedata
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "Tests" / "corpus" / "evasions.jsonl"
WORDLISTS = ROOT / "Tests" / "corpus" / "wordlists"
VENV = ROOT / ".build" / "filters-venv"

# Pinned peers: name -> (distribution name on PyPI, pip requirement).
PEERS = {
    "better-profanity": ("better-profanity", "better-profanity==0.7.0"),
    "glin-profanity": ("glin-profanity", "glin-profanity~=4.1.0"),
}
FILTERS = ["bouncer", "better-profanity", "glin-profanity"]

# The categories, in the order the table shows them.
HIT_CATEGORIES = [
    "plain", "case_spacing", "separators", "stretched", "leet", "leet_separators", "masked",
    "markup", "lookalike", "invisible", "diacritics", "inflection",
]
CLEAN_CATEGORIES = [
    "scunthorpe", "prices_arithmetic", "email", "programming", "chat", "names_places",
    "foreign_substrings",
]
CHECK_MIN_RECALL = 0.95
CHECK_MAX_FALSE_ALARMS = 0.01
MIN_PER_CATEGORY = 10


# ---------------------------------------------------------------------------------------------
# Corpus and word lists

def read_wordlists(directory: Path) -> dict[str, list[str]]:
    lists: dict[str, list[str]] = {}
    for path in sorted(directory.iterdir()):
        if path.is_file() and re.fullmatch(r"[a-z]{2,3}(-[A-Za-z0-9-]+)?", path.name):
            entries = [line.strip() for line in path.read_text(encoding="utf-8").split("\n")]
            lists[path.name] = [e for e in entries if e]
    return lists


def read_corpus(path: Path) -> list[dict]:
    cases = []
    with path.open(encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                case = json.loads(line)
            except json.JSONDecodeError as error:
                raise SystemExit(f"{path}:{number}: not JSON: {error}")
            case["_line"] = number
            cases.append(case)
    return cases


def fold_case(text: str) -> str:
    return unicodedata.normalize("NFC", text).casefold()


def fold_marks(text: str) -> str:
    """Case and diacritics folded; no compatibility folding (fullwidth stays fullwidth)."""
    decomposed = unicodedata.normalize("NFD", text.casefold())
    return unicodedata.normalize("NFC", "".join(c for c in decomposed if unicodedata.category(c) != "Mn"))


def entry_pattern(entry: str, fold) -> re.Pattern:
    """A list entry as a whole word (or words in sequence) in a folded text."""
    words = [re.escape(fold(w)) for w in entry.split()]
    return re.compile(r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)")


class ListMatcher:
    """Plain, literal matching of a word list: the lint's reference, not a filter."""

    def __init__(self, entries: list[str]):
        self.entries = entries
        self.by_case = [(e, entry_pattern(e, fold_case)) for e in entries]
        self.by_marks = [(e, entry_pattern(e, fold_marks)) for e in entries]
        self.folded = {fold_case(e) for e in entries}

    def found(self, text: str, marks: bool = False) -> list[str]:
        folded = fold_marks(text) if marks else fold_case(text)
        table = self.by_marks if marks else self.by_case
        return [e for e, pattern in table if pattern.search(folded)]

    def matches_entry(self, text: str, entry: str, marks: bool = False) -> bool:
        fold = fold_marks if marks else fold_case
        return entry_pattern(entry, fold).search(fold(text)) is not None


def lint(cases: list[dict], lists: dict[str, list[str]]) -> tuple[list[str], list[str]]:
    """Errors (the corpus is wrong) and warnings (it is thin somewhere)."""
    errors: list[str] = []
    warnings: list[str] = []
    matchers = {lang: ListMatcher(entries) for lang, entries in lists.items()}
    seen_ids: set[str] = set()
    seen_texts: dict[tuple[str, str], str] = {}
    required = {"id", "expected", "category", "lang", "base", "text"}
    for case in cases:
        where = f"line {case['_line']} ({case.get('id', '?')})"
        missing = required - case.keys()
        if missing:
            errors.append(f"{where}: missing {', '.join(sorted(missing))}")
            continue
        if case["id"] in seen_ids:
            errors.append(f"{where}: duplicate id")
        seen_ids.add(case["id"])
        text, lang, expected, category, base = (case[k] for k in ("text", "lang", "expected", "category", "base"))
        if not isinstance(text, str) or not text.strip():
            errors.append(f"{where}: empty text")
            continue
        key = (lang, text)
        if key in seen_texts:
            errors.append(f"{where}: same text as {seen_texts[key]}")
        seen_texts[key] = case["id"]
        if lang not in matchers:
            errors.append(f"{where}: no word list for language {lang!r}")
            continue
        matcher = matchers[lang]
        if expected == "hit":
            if category not in HIT_CATEGORIES:
                errors.append(f"{where}: unknown hit category {category!r}")
            if not base or fold_case(base) not in matcher.folded:
                errors.append(f"{where}: base {base!r} is not in the {lang} list")
                continue
            if category in ("plain", "case_spacing"):
                if not matcher.matches_entry(text, base):
                    errors.append(f"{where}: a {category} case must contain {base!r} as it is listed")
            else:
                plain = matcher.found(text)
                if plain:
                    errors.append(f"{where}: contains listed {plain} as is, so it tests no evasion")
                if category == "diacritics" and not matcher.matches_entry(text, base, marks=True):
                    errors.append(f"{where}: without its diacritics it should read {base!r}")
        elif expected == "clean":
            if category not in CLEAN_CATEGORIES:
                errors.append(f"{where}: unknown clean category {category!r}")
            if base:
                errors.append(f"{where}: a clean case has no base")
            listed = matcher.found(text, marks=True)
            if listed:
                errors.append(f"{where}: clean text contains listed {listed} as a whole word")
        else:
            errors.append(f"{where}: expected must be hit or clean, not {expected!r}")
    counts = defaultdict(int)
    for case in cases:
        counts[(case.get("expected"), case.get("category"))] += 1
    for category in HIT_CATEGORIES:
        if counts[("hit", category)] < MIN_PER_CATEGORY:
            warnings.append(f"only {counts[('hit', category)]} hit cases in {category}")
    for category in CLEAN_CATEGORIES:
        if counts[("clean", category)] < MIN_PER_CATEGORY:
            warnings.append(f"only {counts[('clean', category)]} clean cases in {category}")
    for expected in ("hit", "clean"):
        total = sum(1 for c in cases if c.get("expected") == expected)
        if total < 200:
            warnings.append(f"only {total} {expected} cases (want at least 200)")
    return errors, warnings


# ---------------------------------------------------------------------------------------------
# Bouncer, through its HTTP API

def default_binary() -> Path:
    for candidate in (ROOT / ".build" / "release" / "bouncer", ROOT / ".build" / "debug" / "bouncer"):
        if candidate.exists():
            return candidate
    return ROOT / ".build" / "release" / "bouncer"


class BouncerServer:
    def __init__(self, binary: Path):
        self.binary = binary
        self.tmp = Path(tempfile.mkdtemp(prefix="bouncer-corpus-"))
        self.secret_file = self.tmp / "secret"
        self.secret_file.write_text(secrets.token_hex(32) + "\n")
        self.secret_file.chmod(0o600)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("BOUNCER_")}
        self.process: subprocess.Popen | None = None
        self.port: int | None = None
        self.log: list[str] = []
        self.connection: http.client.HTTPConnection | None = None
        self.token = ""

    def version(self) -> str:
        out = subprocess.run([str(self.binary), "--version"], capture_output=True, text=True, env=self.env, timeout=30)
        return out.stdout.strip() or out.stderr.strip()

    def start(self) -> None:
        command = [str(self.binary), "serve", "--host", "127.0.0.1", "--port", "0",
                   "--data-dir", str(self.tmp / "data"), "--jwt-secret-file", str(self.secret_file),
                   "--send-rate-per-user", "0", "--synchronous", "NORMAL"]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        text=True, env=self.env, start_new_session=True)
        listening = threading.Event()

        def drain() -> None:
            assert self.process and self.process.stdout
            for line in self.process.stdout:
                self.log.append(line.rstrip("\n"))
                if self.port is None:
                    try:
                        entry = json.loads(line)
                    except json.JSONDecodeError:
                        continue
                    if entry.get("msg") == "listening" and "port" in entry:
                        self.port = int(entry["port"])
                        listening.set()
            listening.set()

        threading.Thread(target=drain, daemon=True).start()
        if not listening.wait(60) or self.port is None:
            self.stop()
            raise SystemExit("bouncer did not start:\n" + "\n".join(self.log[-20:]))
        token = subprocess.run([str(self.binary), "token", "--user", "corpus", "--role", "admin", "--ttl", "86400",
                                "--data-dir", str(self.tmp / "data"), "--jwt-secret-file", str(self.secret_file)],
                               capture_output=True, text=True, env=self.env, timeout=30)
        if token.returncode != 0:
            self.stop()
            raise SystemExit(f"bouncer token failed: {token.stderr.strip()}")
        self.token = token.stdout.strip()
        deadline = time.monotonic() + 30
        while True:
            try:
                status, _ = self.request("GET", "/readyz")
                if status == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise SystemExit("bouncer never became ready")
            time.sleep(0.1)

    def request(self, method: str, path: str, body: bytes | None = None,
                content_type: str = "application/json") -> tuple[int, bytes]:
        headers = {"Authorization": f"Bearer {self.token}"}
        if body is not None:
            headers["Content-Type"] = content_type
        for attempt in range(2):
            if self.connection is None:
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            try:
                self.connection.request(method, path, body=body, headers=headers)
                response = self.connection.getresponse()
                data = response.read()
                if response.getheader("Connection", "").lower() == "close":
                    self.connection.close()
                    self.connection = None
                return response.status, data
            except (OSError, http.client.HTTPException):
                if self.connection is not None:
                    self.connection.close()
                self.connection = None
                if attempt == 1:
                    raise
        raise AssertionError("unreachable")

    def import_lists(self, lists: dict[str, list[str]], mode: str) -> dict[str, int]:
        """Word rules for one-word entries, phrase rules for the rest, action bounce."""
        imported: dict[str, int] = {}
        if mode == "per-language":
            # One channel per language: text/plain imports cannot name channels, so JSON.
            for lang, entries in lists.items():
                rules = [{"kind": "phrase" if len(e.split()) > 1 else "word", "pattern": e,
                          "action": "bounce", "channels": [f"corpus-{lang}"]} for e in entries]
                status, data = self.request("POST", "/v1/rules/import", json.dumps({"rules": rules}).encode())
                if status != 201:
                    raise SystemExit(f"importing the {lang} list failed: {status} {data.decode(errors='replace')}")
                imported[lang] = json.loads(data)["imported"]
        else:
            # Every list on every channel: one pattern a line, kind and action in the query.
            for lang, entries in lists.items():
                words = [e for e in entries if len(e.split()) == 1]
                phrases = [e for e in entries if len(e.split()) > 1]
                count = 0
                for kind, patterns in (("word", words), ("phrase", phrases)):
                    if not patterns:
                        continue
                    status, data = self.request("POST", f"/v1/rules/import?kind={kind}&action=bounce",
                                                ("\n".join(patterns) + "\n").encode(), "text/plain; charset=utf-8")
                    if status != 201:
                        raise SystemExit(f"importing the {lang} {kind}s failed: {status} {data.decode(errors='replace')}")
                    count += json.loads(data)["imported"]
                imported[lang] = count
        return imported

    def check(self, text: str, lang: str) -> tuple[bool | None, str | list[str]]:
        body = json.dumps({"text": text, "channel_id": f"corpus-{lang}"}).encode()
        status, data = self.request("POST", "/v1/moderation/check", body)
        if status != 200:
            return None, f"{status} {data.decode(errors='replace')[:200]}"
        answer = json.loads(data)
        action = answer.get("action", "none")
        return action != "none", [rule.get("name", "") for rule in answer.get("rules", [])]

    def stop(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        shutil.rmtree(self.tmp, ignore_errors=True)


def run_bouncer(binary: Path, cases: list[dict], lists: dict[str, list[str]], mode: str) -> dict:
    if not binary.exists():
        raise SystemExit(f"no bouncer binary at {binary} (build it, or pass --binary)")
    server = BouncerServer(binary)
    version = server.version()
    try:
        server.start()
        imported = server.import_lists(lists, mode)
        results: dict[str, bool] = {}
        errors: dict[str, str] = {}
        matched: dict[str, list[str]] = {}
        for case in cases:
            hit, detail = server.check(case["text"], case["lang"])
            if hit is None:
                errors[case["id"]] = str(detail)
                hit = False
            elif hit:
                matched[case["id"]] = list(detail)
            results[case["id"]] = hit
    finally:
        server.stop()
    return {"version": version, "binary": str(binary), "results": results, "errors": errors, "matched": matched,
            "config": f"rules imported per language: {imported}; word rules for one-word entries, phrase rules "
                      f"for entries with spaces, action bounce; "
                      + ("one channel per language (corpus-<lang>), checked with that channel_id"
                         if mode == "per-language" else "every list on every channel")}


# ---------------------------------------------------------------------------------------------
# The peers, in their own venv

PEER_WORKER = r'''
import json, sys, unicodedata
from importlib.metadata import version

request = json.load(sys.stdin)
lists = request["lists"]            # lang -> entries (the list each text of that lang is judged by)
cases = request["cases"]
out = {"versions": {}, "config": {}, "results": {}}
GLIN_LANGUAGE = {"en": "english", "de": "german", "fr": "french", "es": "spanish"}

if "better-profanity" in request["filters"]:
    from better_profanity import Profanity
    out["versions"]["better-profanity"] = version("better-profanity")
    filters = {lang: Profanity(list(entries)) for lang, entries in lists.items()}
    out["config"]["better-profanity"] = ("Profanity(words) per language with the stored list "
                                         "(replaces its built-in list); its own leet variants")
    out["results"]["better-profanity"] = {
        c["id"]: filters[c["lang"]].contains_profanity(c["text"]) for c in cases}

if "glin-profanity" in request["filters"]:
    from glin_profanity import Filter
    from glin_profanity.data.dictionary import dictionary
    from glin_profanity.utils.unicode import normalize_unicode
    out["versions"]["glin-profanity"] = version("glin-profanity")
    filters = {}
    for lang, entries in lists.items():
        # glin always loads a built-in language list (languages=[] falls back to English), so
        # load the text's own language, add the stored list as custom_words and switch every
        # built-in word that is not in the stored list off with ignore_words.
        builtin_language = GLIN_LANGUAGE.get(lang, "english")
        ours = {e.lower() for e in entries}
        wanted = ours | {normalize_unicode(e).lower() for e in entries}
        ignore = {w.lower() for w in dictionary.get_words(builtin_language)} - ours
        config = {
            "languages": [builtin_language],
            "custom_words": list(entries),
            "ignore_words": sorted(ignore),
            "detect_leetspeak": True,
            "leetspeak_level": "moderate",
            "normalize_unicode": True,
            "obfuscation": "standard",
        }
        f = Filter(config)
        # Accent-folded aliases of ignored built-in words come back in; switch those off too.
        active = set(f._scanner.active_words) if f._scanner is not None else set(f.words) - ignore
        extra = active - wanted
        if extra:
            config["ignore_words"] = sorted(ignore | extra)
            f = Filter(config)
            active = set(f._scanner.active_words) if f._scanner is not None else set(f.words) - ignore - extra
        stray = active - wanted
        if stray:
            raise SystemExit(f"glin-profanity keeps built-in words for {lang}: {sorted(stray)[:10]}")
        filters[lang] = f
    out["config"]["glin-profanity"] = (
        "Filter(languages=[the text's language], custom_words=stored list, ignore_words=every built-in "
        "word not in the stored list, detect_leetspeak=True, leetspeak_level='moderate', "
        "normalize_unicode=True, obfuscation='standard'); the active words are checked to be "
        "exactly the stored list (plus glin's own accent-folded aliases of it)")
    out["results"]["glin-profanity"] = {c["id"]: bool(filters[c["lang"]].is_profane(c["text"])) for c in cases}

json.dump(out, sys.stdout)
'''


def venv_python() -> Path:
    return VENV / "bin" / "python"


def ensure_venv(wanted: list[str]) -> None:
    if not venv_python().exists():
        print(f"creating {VENV.relative_to(ROOT)} ...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    missing = []
    for name in wanted:
        dist, requirement = PEERS[name]
        out = subprocess.run([str(venv_python()), "-c",
                              f"from importlib.metadata import version\nprint(version({dist!r}))"],
                             capture_output=True, text=True)
        installed = out.stdout.strip() if out.returncode == 0 else None
        if not installed or not version_allowed(installed, requirement):
            missing.append(requirement)
    if missing:
        print(f"installing {' '.join(missing)} into {VENV.relative_to(ROOT)} ...", file=sys.stderr)
        subprocess.run([str(venv_python()), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        *missing], check=True)


def version_allowed(installed: str, requirement: str) -> bool:
    """`==X.Y.Z` exactly, or `~=X.Y.Z` (X.Y.*, at least X.Y.Z); numeric releases only."""
    def numbers(text: str) -> tuple[int, ...] | None:
        return tuple(int(p) for p in text.split(".")) if re.fullmatch(r"\d+(\.\d+)*", text) else None
    have = numbers(installed)
    if have is None:
        return False
    if "==" in requirement:
        return have == numbers(requirement.split("==", 1)[1])
    if "~=" in requirement:
        floor = numbers(requirement.split("~=", 1)[1]) or ()
        return have[: len(floor) - 1] == floor[:-1] and have >= floor
    return True


def run_peers(names: list[str], cases: list[dict], lists: dict[str, list[str]], mode: str) -> dict:
    ensure_venv(names)
    per_lang = lists if mode == "per-language" else {
        lang: [e for entries in lists.values() for e in entries] for lang in lists}
    request = {"filters": names, "lists": per_lang,
               "cases": [{"id": c["id"], "lang": c["lang"], "text": c["text"]} for c in cases]}
    worker = subprocess.run([str(venv_python()), "-c", PEER_WORKER], input=json.dumps(request),
                            capture_output=True, text=True)
    if worker.returncode != 0:
        raise SystemExit(f"peer filters failed:\n{worker.stderr[-4000:]}")
    data = json.loads(worker.stdout)
    return {name: {"version": data["versions"][name], "config": data["config"][name],
                   "results": data["results"][name], "errors": {}} for name in names}


# ---------------------------------------------------------------------------------------------
# Figures and the table

def shown(text: str) -> str:
    """A text with its invisible characters, tabs and newlines made visible."""
    out = []
    for ch in text:
        if ch == "\t":
            out.append("\\t")
        elif ch == "\n":
            out.append("\\n")
        elif ch != " " and unicodedata.category(ch) in ("Cf", "Mn", "Me", "Zs", "Zl", "Zp", "Cc"):
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "".join(out)


def figures(cases: list[dict], results: dict[str, bool]) -> dict:
    by_category: dict[str, dict] = {}
    by_language: dict[str, dict] = {}
    totals = {"hit": [0, 0], "clean": [0, 0]}
    for case in cases:
        flagged = bool(results.get(case["id"]))
        expected = case["expected"]
        cat = by_category.setdefault(case["category"], {"expected": expected, "n": 0, "flagged": 0})
        cat["n"] += 1
        cat["flagged"] += flagged
        lang = by_language.setdefault(case["lang"], {"hit": [0, 0], "clean": [0, 0]})
        lang[expected][0] += flagged
        lang[expected][1] += 1
        totals[expected][0] += flagged
        totals[expected][1] += 1
    for cat in by_category.values():
        cat["rate"] = cat["flagged"] / cat["n"] if cat["n"] else 0.0
        cat["measure"] = "recall" if cat["expected"] == "hit" else "false_alarm_rate"
    misses = [c["id"] for c in cases if c["expected"] == "hit" and not results.get(c["id"])]
    false_alarms = [c["id"] for c in cases if c["expected"] == "clean" and results.get(c["id"])]
    return {
        "categories": by_category,
        "languages": {lang: {"recall": v["hit"][0] / v["hit"][1] if v["hit"][1] else None,
                             "hits": v["hit"], "false_alarm_rate": v["clean"][0] / v["clean"][1] if v["clean"][1] else None,
                             "false_alarms": v["clean"]} for lang, v in by_language.items()},
        "recall": totals["hit"][0] / totals["hit"][1] if totals["hit"][1] else 0.0,
        "recall_counts": totals["hit"],
        "false_alarm_rate": totals["clean"][0] / totals["clean"][1] if totals["clean"][1] else 0.0,
        "false_alarm_counts": totals["clean"],
        "misses": misses,
        "false_alarms": false_alarms,
    }


def cell(flagged: int, n: int) -> str:
    return f"{100.0 * flagged / n:5.1f}% {flagged:>3}/{n:<3}" if n else "-"


def print_table(cases: list[dict], measured: dict[str, dict]) -> None:
    names = [n for n in FILTERS if n in measured]
    width = 16
    header = f"{'category':<20} {'n':>4}  " + "  ".join(f"{n:>{width}}" for n in names)
    print(header)
    print("-" * len(header))

    def row(label: str, n: int, values: list[tuple[int, int]]) -> None:
        print(f"{label:<20} {n:>4}  " + "  ".join(f"{cell(f, m):>{width}}" for f, m in values))

    print("recall on hit cases (higher is better)")
    for category in HIT_CATEGORIES:
        n = sum(1 for c in cases if c["expected"] == "hit" and c["category"] == category)
        if n:
            row(category, n, [(measured[x]["figures"]["categories"][category]["flagged"], n) for x in names])
    n = sum(1 for c in cases if c["expected"] == "hit")
    row("all hit cases", n, [tuple(measured[x]["figures"]["recall_counts"]) for x in names])
    evasions = [c for c in cases if c["expected"] == "hit" and c["category"] != "plain"]
    row("  evasions only", len(evasions),
        [(sum(1 for c in evasions if measured[x]["results"].get(c["id"])), len(evasions)) for x in names])
    print("false alarms on clean cases (lower is better)")
    for category in CLEAN_CATEGORIES:
        n = sum(1 for c in cases if c["expected"] == "clean" and c["category"] == category)
        if n:
            row(category, n, [(measured[x]["figures"]["categories"][category]["flagged"], n) for x in names])
    n = sum(1 for c in cases if c["expected"] == "clean")
    row("all clean cases", n, [tuple(measured[x]["figures"]["false_alarm_counts"]) for x in names])
    print("by language: recall / false alarms")
    for lang in sorted({c["lang"] for c in cases}, key=lambda l: (l != "en", l)):
        hits = sum(1 for c in cases if c["lang"] == lang and c["expected"] == "hit")
        cleans = sum(1 for c in cases if c["lang"] == lang and c["expected"] == "clean")
        if hits:
            row(f"{lang} recall", hits, [tuple(measured[x]["figures"]["languages"][lang]["hits"]) for x in names])
        if cleans:
            row(f"{lang} false alarms", cleans,
                [tuple(measured[x]["figures"]["languages"][lang]["false_alarms"]) for x in names])


def print_details(name: str, cases: list[dict], result: dict) -> None:
    by_id = {c["id"]: c for c in cases}
    fig = result["figures"]
    print(f"\n{name}: {len(fig['misses'])} misses (hit cases let through)")
    for case_id in fig["misses"]:
        c = by_id[case_id]
        print(f"  {c['category']:<16} {c['lang']}  {shown(c['text'])!s:<40}  base={c['base']}  [{case_id}]")
    print(f"{name}: {len(fig['false_alarms'])} false alarms (clean cases flagged)")
    for case_id in fig["false_alarms"]:
        c = by_id[case_id]
        print(f"  {c['category']:<16} {c['lang']}  {shown(c['text'])}  [{case_id}]")
    matched = result.get("matched")
    if matched:
        # Caught, but by another rule than the base word: right for the wrong reason.
        other = [c for c in cases if c["expected"] == "hit" and c["id"] in matched
                 and fold_case(c["base"]) not in {fold_case(n) for n in matched[c["id"]]}]
        print(f"{name}: {len(other)} hit cases caught by another rule than their base word")
        for c in other:
            print(f"  {c['category']:<16} {c['lang']}  {shown(c['text'])!s:<40}  base={c['base']}  "
                  f"rules={matched[c['id']]}  [{c['id']}]")
    if result.get("errors"):
        print(f"{name}: {len(result['errors'])} requests failed (counted as not flagged)")
        for case_id, detail in result["errors"].items():
            print(f"  {shown(by_id[case_id]['text'])}  [{case_id}]: {detail}")


def check_bouncer(fig: dict) -> list[str]:
    failures = []
    for category in HIT_CATEGORIES:
        entry = fig["categories"].get(category)
        if entry and entry["rate"] < CHECK_MIN_RECALL:
            failures.append(f"recall in {category} is {100 * entry['rate']:.1f}% "
                            f"({entry['flagged']}/{entry['n']}), below {100 * CHECK_MIN_RECALL:.0f}%")
    if fig["false_alarm_rate"] > CHECK_MAX_FALSE_ALARMS:
        flagged, n = fig["false_alarm_counts"]
        failures.append(f"false alarms are {100 * fig['false_alarm_rate']:.2f}% ({flagged}/{n}), "
                        f"above {100 * CHECK_MAX_FALSE_ALARMS:.0f}%")
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", type=Path, help="the bouncer binary (default .build/release/bouncer, "
                        "else .build/debug/bouncer); pass a copy if a build may replace it meanwhile")
    parser.add_argument("--only", help="comma-separated filters to run: " + ", ".join(FILTERS))
    parser.add_argument("--check", action="store_true", help="exit 1 unless Bouncer's recall is >= 95%% in "
                        "every evasion category and its false alarms are <= 1%% overall")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write every figure to FILE")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--wordlists", type=Path, default=WORDLISTS)
    parser.add_argument("--lists", choices=["per-language", "all"], default="per-language",
                        help="judge each text by its language's list (default) or by every list")
    parser.add_argument("--lint", action="store_true", help="only check the corpus against the word lists")
    parser.add_argument("--details", action="store_true", help="list the peers' misses and false alarms too")
    args = parser.parse_args()

    lists = read_wordlists(args.wordlists)
    cases = read_corpus(args.corpus)
    errors, warnings = lint(cases, lists)
    for warning in warnings:
        print(f"corpus warning: {warning}", file=sys.stderr)
    if errors:
        for error in errors:
            print(f"corpus error: {error}", file=sys.stderr)
        return 2
    used_langs = sorted({c["lang"] for c in cases})
    lists = {lang: lists[lang] for lang in used_langs}
    hits = sum(1 for c in cases if c["expected"] == "hit")
    print(f"corpus: {len(cases)} cases ({hits} hit, {len(cases) - hits} clean) in {', '.join(used_langs)}; "
          f"word lists: " + ", ".join(f"{lang} {len(lists[lang])}" for lang in used_langs))
    if args.lint:
        print("corpus ok")
        return 0

    names = FILTERS if not args.only else [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = [n for n in names if n not in FILTERS]
    if unknown:
        parser.error(f"unknown filter(s) {', '.join(unknown)}; choose from {', '.join(FILTERS)}")
    if args.check and "bouncer" not in names:
        parser.error("--check judges Bouncer: do not leave it out with --only")

    measured: dict[str, dict] = {}
    if "bouncer" in names:
        measured["bouncer"] = run_bouncer(args.binary or default_binary(), cases, lists, args.lists)
    peers = [n for n in names if n != "bouncer"]
    if peers:
        measured.update(run_peers(peers, cases, lists, args.lists))
    for result in measured.values():
        result["figures"] = figures(cases, result["results"])

    print(f"lists: {args.lists}")
    for name in FILTERS:
        if name in measured:
            print(f"{name} {measured[name]['version']}: {measured[name]['config']}")
    print()
    print_table(cases, measured)
    for name in FILTERS:
        if name in measured and (name == "bouncer" or args.details):
            print_details(name, cases, measured[name])

    failures = check_bouncer(measured["bouncer"]["figures"]) if "bouncer" in measured else []
    if args.json:
        document = {
            "corpus": str(args.corpus), "lists": args.lists,
            "cases": {"hit": hits, "clean": len(cases) - hits},
            "filters": {name: {"version": r["version"], "config": r["config"], "errors": r["errors"],
                               **({"matched_rules": r["matched"]} if "matched" in r else {}),
                               **r["figures"]} for name, r in measured.items()},
            "check": {"min_recall": CHECK_MIN_RECALL, "max_false_alarm_rate": CHECK_MAX_FALSE_ALARMS,
                      "bouncer_failures": failures},
        }
        args.json.write_text(json.dumps(document, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    if args.check:
        print()
        if failures:
            print("check FAILED for Bouncer:")
            for failure in failures:
                print(f"  {failure}")
            return 1
        print("check passed: Bouncer's recall is at least 95% in every evasion category and its false "
              "alarms are at most 1%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
