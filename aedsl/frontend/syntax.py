"""Reading the parse tree: source positions of nodes, integer literal text, and the names a
statement block assigns."""
from __future__ import annotations

from lark import Token, Tree


def pos(node) -> tuple[int, int]:
    if isinstance(node, Token):
        return node.line or 0, node.column or 0
    if isinstance(node, Tree) and not node.meta.empty:
        return node.meta.line, node.meta.column
    if isinstance(node, Tree):
        for child in node.children:
            if child is not None:
                p = pos(child)
                if p != (0, 0):
                    return p
    return 0, 0


def parse_int(text: str) -> int:
    digits = text.replace("_", "").lower()
    if digits.startswith(("0x", "0b")):
        return int(digits[2:], 16 if digits[1] == "x" else 2)
    return int(digits, 10)  # leading zeros are fine: "007" is 7


def assigned_names(block: Tree) -> list[str]:
    """Names assigned anywhere in a statement block (nested blocks included), first use first.
    Names declared by `var` inside the block are local to it and left out."""
    names: list[str] = []
    declared: set[str] = set()

    def visit(node):
        if not isinstance(node, Tree):
            return
        if node.data == "var_stmt":
            declared.add(str(node.children[0]))
        if node.data == "lv_name":
            n = str(node.children[0])
            if n not in names and n not in declared:
                names.append(n)
        for c in node.children:
            visit(c)

    visit(block)
    return names
