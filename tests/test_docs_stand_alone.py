"""The README and docs/ explain the project on their own: no path they name points outside the
repository, and every repository path they name exists (a doc that sends a reader to a file
that is not there is as bad as one that sends them away)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
OUTSIDE = re.compile(r"\.\./(?:[\w.-]+/)*[\w.-]+|/work/\S+|ARCHITECTURE\.md")
NAMED_DOC = re.compile(r"`(docs/[\w./-]+\.md)`")


def test_bug_the_readme_sent_readers_to_design_files_outside_the_repository():
    found = [f"{doc.relative_to(ROOT)}: {match.group(0)}" for doc in DOCS
             for match in OUTSIDE.finditer(doc.read_text(encoding="utf-8"))]
    assert not found, found


def test_every_doc_the_docs_name_exists():
    missing = [f"{doc.relative_to(ROOT)} names {name}" for doc in DOCS
               for name in NAMED_DOC.findall(doc.read_text(encoding="utf-8")) if not (ROOT / name).exists()]
    assert not missing, missing
