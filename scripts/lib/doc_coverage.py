#!/usr/bin/env python3
"""Documentation coverage of Keep's libraries, read from their symbol graphs.

Usage: doc_coverage.py [--min-members PERCENT] SYMBOL_GRAPH_DIR...
       doc_coverage.py --self-test

Each SYMBOL_GRAPH_DIR holds the `<Module>.symbols.json` of one library (from
`swift symbolgraph-extract -minimum-access-level public`). Counted are the public
declarations the project writes: a symbol the compiler synthesized (no source location,
or a member inherited from a protocol extension) is left out, and so is a member that
only implements a standard protocol's requirement (`description`, `==`, `init(from:)`,
whose documentation is the protocol's). A member that implements a protocol of another
Keep library needs a comment of its own: docc shows that member's page with no more than
"Inherited from" the protocol's. Documented means the comment is the symbol's own, or its
own module's protocol's (which docc shows), and has an abstract: a first paragraph that
is not a parameter list.

The bar: every public type documented, and at least PERCENT (default 90) of the
members. Prints a table, names each undocumented symbol as file:line, and exits 1
when a library is below the bar. It also fails a library whose landing page
(Sources/<Module>/<Module>.docc/<Module>.md, when there is one) leaves a top-level
symbol out of its topics, naming it.
"""

import io
import json
import os
import sys
from urllib.parse import unquote, urlparse

TYPE_KINDS = {
    "swift.class", "swift.struct", "swift.enum", "swift.protocol", "swift.typealias",
}


def has_abstract(doc):
    for line in (entry["text"].strip() for entry in doc.get("lines", [])):
        if not line:
            continue
        return not line.startswith("- ")
    return False


def where(symbol, root):
    location = symbol.get("location")
    if not location:
        return "?"
    path = unquote(urlparse(location["uri"]).path)
    if root and path.startswith(root + "/"):
        path = path[len(root) + 1:]
    return f"{path}:{location['position']['line'] + 1}"


def measure(graph):
    """(module, types, documented types, members, documented members, undocumented symbols)."""
    module = graph["module"]["name"]
    types = members = types_documented = members_documented = 0
    missing = []
    for symbol in graph["symbols"]:
        if not symbol.get("location") or "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
            continue
        doc = symbol.get("docComment")
        owner = doc.get("module", module) if doc else None
        if doc and not owner.startswith("Keep"):
            continue  # a standard library protocol's requirement, documented by that protocol
        documented = bool(doc) and owner == module and has_abstract(doc)
        if symbol["kind"]["identifier"] in TYPE_KINDS:
            types += 1
            types_documented += documented
        else:
            members += 1
            members_documented += documented
        if not documented:
            missing.append(symbol)
    return module, types, types_documented, members, members_documented, missing


def uncurated(graph, root):
    """The top-level symbols the module's landing page does not link, or [] without a page."""
    module = graph["module"]["name"]
    page = os.path.join(root, "Sources", module, module + ".docc", module + ".md")
    if not os.path.exists(page):
        return []
    with open(page) as file:
        text = file.read()
    names = {
        symbol["pathComponents"][0]
        for symbol in graph["symbols"]
        if len(symbol["pathComponents"]) == 1
        and symbol.get("location")
        and "::SYNTHESIZED::" not in symbol["identifier"]["precise"]
    }
    return sorted(name for name in names if f"``{name}``" not in text)


def percent(part, whole):
    return 100.0 if whole == 0 else 100.0 * part / whole


def report(graphs, min_members, root, out=sys.stdout):
    """Prints the table and the undocumented symbols; returns True when every library passes."""
    rows = [measure(graph) for graph in graphs]
    passed = True
    for graph in graphs:
        left_out = uncurated(graph, root)
        if left_out:
            passed = False
            module = graph["module"]["name"]
            print(f"{module}: not in the landing page's topics: {', '.join(left_out)}", file=out)
    print(f"{'library':<20} {'types':>9} {'members':>11} {'coverage':>9}  bar", file=out)
    for module, types, types_doc, members, members_doc, _ in rows:
        share = percent(members_doc, members)
        ok = types_doc == types and share >= min_members
        passed = passed and ok
        print(
            f"{module:<20} {types_doc:>4}/{types:<4} {members_doc:>5}/{members:<5} {share:>8.1f}%  "
            f"{'ok' if ok else 'BELOW'}",
            file=out,
        )
    for module, types, types_doc, members, members_doc, missing in rows:
        if types_doc == types and percent(members_doc, members) >= min_members:
            continue
        print(f"\n{module}: undocumented (every type, and {min_members:g}% of members, need an abstract):", file=out)
        for symbol in sorted(missing, key=lambda s: where(s, root)):
            name = ".".join(symbol["pathComponents"])
            print(f"  {where(symbol, root)}: {symbol['kind']['displayName'].lower()} {name}", file=out)
    return passed


def load(directory):
    graphs = []
    for name in sorted(os.listdir(directory)):
        if name.endswith(".symbols.json") and "@" not in name:
            with open(os.path.join(directory, name)) as file:
                graphs.append(json.load(file))
    if not graphs:
        raise SystemExit(f"doc_coverage: no symbol graph in {directory}")
    return graphs


def self_test():
    """The bar bites: an undocumented member, one with only a parameter list, one with only
    another library's port comment, and an undocumented type each fail it, the member named
    as file:line; the same graph documented passes."""

    def symbol(kind, path, doc, location=True, precise=None):
        entry = {
            "kind": {"identifier": kind, "displayName": kind.split(".")[-1]},
            "identifier": {"precise": precise or "s:" + "".join(path)},
            "pathComponents": path,
        }
        if location:
            entry["location"] = {"uri": "file:///x/Sources/KeepBox/Box.swift", "position": {"line": 3, "character": 0}}
        if doc is not None:
            entry["docComment"] = {"module": doc[0], "lines": [{"text": text} for text in doc[1]]}
        return entry

    def graph(put_doc, extra=()):
        return {
            "module": {"name": "KeepBox"},
            "symbols": [
                symbol("swift.struct", ["Box"], ("KeepBox", ["A box that keeps one value."])),
                symbol("swift.method", ["Box", "get()"], ("KeepBox", ["The value kept."])),
                symbol("swift.method", ["Box", "put(_:)"], put_doc),
                # Left out: synthesized, a standard protocol's witness, an inherited default.
                symbol("swift.func.op", ["Box", "==(_:_:)"], None, location=False),
                symbol("swift.property", ["Box", "description"], ("Swift", ["A textual representation."])),
                symbol("swift.method", ["Box", "x()"], None, precise="s:x::SYNTHESIZED::s:Box"),
                *extra,
            ],
        }

    sink = io.StringIO()
    named = io.StringIO()
    undocumented = report([graph(None)], 90, "/x", out=named)
    parameters_only = report([graph(("KeepBox", ["- Parameter value: the value"]))], 90, "/x", out=sink)
    documented = report([graph(("KeepBox", ["Replaces the value kept."]))], 90, "/x", out=sink)
    # A port's method implemented in another library, with the port's comment alone.
    witness = symbol("swift.method", ["Box", "read(_:)"], ("KeepPorts", ["The value stored under `key`."]))
    inherited = report([graph(("KeepBox", ["Replaces the value kept."]), [witness])], 90, "/x", out=sink)
    untyped = graph(("KeepBox", ["Replaces the value kept."]))
    untyped["symbols"][0].pop("docComment")
    type_missing = report([untyped], 0, "/x", out=sink)
    names_it = "Sources/KeepBox/Box.swift:4: method Box.put(_:)" in named.getvalue()
    if undocumented or parameters_only or inherited or not documented or type_missing or not names_it:
        print("doc_coverage self-test: the coverage bar does not bite", file=sys.stderr)
        return 1
    print("doc_coverage self-test: an undocumented member or type fails the bar, named; a documented one passes")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    args = argv[1:]
    min_members = 90.0
    if args[:1] == ["--min-members"]:
        min_members = float(args[1])
        args = args[2:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    root = os.getcwd()
    graphs = [graph for directory in args for graph in load(directory)]
    return 0 if report(graphs, min_members, root) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
