"""Every stable error code the server can send (``paiju-error-code``) has a Chinese sentence in
web/src/refusals.ts: a rule's refusal once reached a player in English alone.

The codes are read from the Python sources by their shape, not from a list to keep by hand: the
code argument of ``require`` and ``IllegalAction``, ``error_code=``/``code=`` keywords, the
wallet's table of refusals and the answers for unexpected errors, with names of string constants
followed to their values."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

import grpc

from paiju.common.error_details import status_word

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "services" / "paiju"
REFUSALS = ROOT / "web" / "src" / "refusals.ts"

CODE_ARGUMENT = {"require": 2, "IllegalAction": 1, "Refused": 1, "Answer": 2}
"""The position of the code among a call's arguments."""
CODE_KEYWORDS = {"code", "error_code"}
DEFAULT_CODE = "illegal"
"""What ``require`` says when it is given no code (paiju.games.engine.require)."""


def _python_sources() -> list[Path]:
    return [path for path in SOURCES.rglob("*.py") if "proto" not in path.parts]


def _string_constants(trees: list[ast.Module]) -> dict[str, set[str]]:
    """Every ``NAME = "text"`` in the sources, by name (a name bound twice keeps both values)."""
    constants: dict[str, set[str]] = defaultdict(set)
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    if isinstance(target, ast.Name):
                        constants[target.id].add(node.value.value)
    return constants


def _words(node: ast.expr, constants: dict[str, set[str]]) -> set[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, ast.Name):
        return constants.get(node.id, set())
    if isinstance(node, ast.IfExp):
        return _words(node.body, constants) | _words(node.orelse, constants)
    return set()  # passed on from elsewhere (``error.code``): its source is read where it is made


def _called(node: ast.Call) -> str | None:
    return node.func.id if isinstance(node.func, ast.Name) else node.func.attr if isinstance(node.func, ast.Attribute) else None


def _parsed(source: str) -> ast.Module:
    try:
        return ast.parse(source)
    except SystemError:
        # CPython before 3.11.8 counts the AST validator's depth in state shared by every thread
        # (gh-106905): a compile on a server thread left over from an earlier test can make this
        # parse fail ("recursion depth mismatch"). The source is sound: parse it again.
        return ast.parse(source)


def server_error_codes() -> set[str]:
    trees = [_parsed(path.read_text()) for path in _python_sources()]
    constants = _string_constants(trees)
    # A status ended without a particular word is named by its status (paiju.rpc.errors.abort).
    codes = {DEFAULT_CODE} | {status_word(code) for code in grpc.StatusCode if code is not grpc.StatusCode.OK}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                position = CODE_ARGUMENT.get(_called(node) or "")
                if position is not None and len(node.args) > position:
                    codes |= _words(node.args[position], constants)
                for keyword in node.keywords:
                    if keyword.arg in CODE_KEYWORDS:
                        codes |= _words(keyword.value, constants)
            elif isinstance(node, ast.AnnAssign | ast.Assign) and "_REFUSALS" in ast.unparse(node.targets[0] if isinstance(node, ast.Assign) else node.target):
                # The wallet's (exception, status, code) rows.
                for row in getattr(node.value, "elts", []):
                    if isinstance(row, ast.Tuple) and row.elts:
                        codes |= _words(row.elts[-1], constants)
    return {code for code in codes if re.fullmatch(r"[a-z][a-z_]*", code)}


def chinese_sentences() -> dict[str, str]:
    body = REFUSALS.read_text().split("export const REFUSALS_ZH", 1)[1].split("\n};", 1)[0]
    return dict(re.findall(r'^  ([a-z_]+): "([^"]*)",', body, flags=re.MULTILINE))


def test_every_error_code_the_server_sends_has_a_chinese_sentence() -> None:
    codes = server_error_codes()
    # The reading found codes of every kind: a rule's, the table's, the wallet's, the limits'.
    assert {"raise_too_small", "not_your_turn", "seat_taken", "username_taken", "rate_limited", "backend_unavailable"} <= codes
    sentences = chinese_sentences()
    missing = sorted(codes - set(sentences))
    assert not missing, f"web/src/refusals.ts REFUSALS_ZH has no Chinese sentence for {missing}"
    assert all(re.search(r"[\u4e00-\u9fff]", sentence) for sentence in sentences.values()), "each sentence is Chinese"
