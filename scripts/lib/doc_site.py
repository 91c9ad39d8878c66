#!/usr/bin/env python3
"""The pieces of scripts/docs that read JSON: the order the libraries are built in, the
finishing touches of the combined site, and the check that its links are made.

Usage: doc_site.py order LIBRARY...       (the manifest's JSON on standard input)
       doc_site.py spi SPI_YML LIBRARY...
       doc_site.py finish SITE
       doc_site.py links SITE
       doc_site.py --self-test

`order` prints the libraries one a line, each after every library it depends on (from
`swift package dump-package`), so that each archive is built with the archives it links
to already there.

`spi` fails unless the Swift Package Index's configuration lists exactly these libraries
as its documentation targets.

`finish` makes the combined site read well: every page gets `css/keep.css`, which wraps
a code listing's long lines instead of clipping them, and the site's root sends the
browser to the landing page (`documentation/`).

`links` crawls the site's render data (data/documentation/**/*.json) and fails, naming
page and text, on every symbol mentioned in code voice (`StorageError`,
`FileStore.write`) that has a page of its own but is not linked to it: write it as a
symbol link (``StorageError``; ``/KeepPorts/StorageError`` from another library). A
name that several pages share, and a page's mention of itself, are left as they are.
"""

import io
import json
import os
import sys

STYLE = """/* Keep's additions to DocC's own style (scripts/lib/doc_site.py). */
/* A code listing wraps a long line rather than clipping it at the page's edge. */
.code-listing pre, .code-listing code {
  white-space: pre-wrap !important;
  overflow-wrap: anywhere;
  word-break: normal;
}
"""

REDIRECT = """<!doctype html>
<meta charset="utf-8">
<title>Keep</title>
<meta http-equiv="refresh" content="0; url=documentation/">
<link rel="canonical" href="documentation/">
<p><a href="documentation/">Keep's documentation</a></p>
"""

TYPE_KINDS = {"struct", "class", "enum", "protocol", "typealias", "actor", "associatedtype"}


def order(libraries, manifest):
    """`libraries` in an order where each comes after those it depends on."""
    depends = {}
    for target in manifest["targets"]:
        names = []
        for dependency in target.get("dependencies", []):
            for value in dependency.values():
                if isinstance(value, list) and value and isinstance(value[0], str):
                    names.append(value[0])
        depends[target["name"]] = names
    done, ordered = set(), []

    def visit(name, path):
        if name in done or name not in depends:
            return
        if name in path:
            raise ValueError("a dependency cycle: " + " -> ".join(path + [name]))
        for dependency in depends[name]:
            visit(dependency, path + [name])
        done.add(name)
        if name in libraries:
            ordered.append(name)

    for library in libraries:
        visit(library, [])
    return ordered


def spi_targets(text):
    """The documentation targets a .spi.yml names (its `documentation_targets: [...]` lines)."""
    targets = []
    for line in text.splitlines():
        key, _, value = line.strip().lstrip("- ").partition(":")
        if key == "documentation_targets":
            targets += [name.strip() for name in value.strip().strip("[]").split(",") if name.strip()]
    return targets


def spi(path, libraries):
    with open(path) as config:
        listed = spi_targets(config.read())
    if sorted(listed) == sorted(libraries):
        return 0
    print(f"{path} lists {', '.join(listed)} as documentation targets; the libraries with a catalog are "
          f"{', '.join(libraries)}", file=sys.stderr)
    return 1


def finish(site):
    """Adds keep.css to every page of `site` and a root that sends the browser on."""
    with open(os.path.join(site, "css", "keep.css"), "w") as out:
        out.write(STYLE)
    link = '<link href="/css/keep.css" rel="stylesheet">'
    pages = 0
    for directory, _, files in os.walk(site):
        for name in files:
            if not name.endswith(".html"):
                continue
            path = os.path.join(directory, name)
            with open(path) as page:
                html = page.read()
            if link not in html and "</head>" in html:
                with open(path, "w") as page:
                    page.write(html.replace("</head>", link + "</head>", 1))
                pages += 1
    with open(os.path.join(site, "index.html"), "w") as out:
        out.write(REDIRECT)
    return pages


def render_nodes(site):
    """(path of the page, its render node) for every page of `site`."""
    root = os.path.join(site, "data")
    for directory, _, files in os.walk(root):
        for name in sorted(files):
            if name.endswith(".json"):
                path = os.path.join(directory, name)
                with open(path) as data:
                    yield "/" + os.path.relpath(path, root)[: -len(".json")], json.load(data)


def code_voices(node):
    """Every code voice in a render node's content (its abstract, discussion, topics),
    leaving out declarations and the references' own data."""
    found = []

    def walk(value):
        if isinstance(value, dict):
            if value.get("type") == "codeVoice" and isinstance(value.get("code"), str):
                found.append(value["code"])
            for key, inner in value.items():
                if key not in ("references", "declarations", "tokens", "fragments", "navigatorTitle"):
                    walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)

    walk({key: inner for key, inner in node.items() if key != "references"})
    return found


def pages_by_name(nodes):
    """The names a code voice may use for a page (a type's name; `Type.member` and its
    base name without arguments; a module's name), each with the page's path, or None
    when several pages share the name."""
    names = {}

    def add(name, path):
        names[name] = path if names.get(name, path) == path else None

    by_path = {path: node for path, node in nodes}
    for path, node in nodes:
        metadata = node.get("metadata", {})
        title = metadata.get("title")
        if not title or node.get("kind") != "symbol":
            continue
        kind = metadata.get("symbolKind")
        if kind == "module" or metadata.get("role") == "collection" and path.count("/") == 2:
            add(title, path)
        elif kind in TYPE_KINDS:
            add(title, path)
        parent = by_path.get(path.rsplit("/", 1)[0])
        parent_meta = (parent or {}).get("metadata", {})
        if parent and parent_meta.get("symbolKind") in TYPE_KINDS:
            for member in {title, title.split("(")[0]}:
                add(parent_meta["title"] + "." + member, path)
    return names


def unlinked(nodes):
    """(page, code, page it should link) for each code voice naming another page."""
    names = pages_by_name(nodes)
    problems = []
    for path, node in nodes:
        for code in code_voices(node):
            target = names.get(code) or names.get(code.split("(")[0] if "." in code else None)
            if target and target != path:
                problems.append((path, code, target))
    return problems


def links(site):
    nodes = list(render_nodes(site))
    problems = unlinked(nodes)
    for path, code, target in problems:
        print(f"{path}: `{code}` has a page ({target}): make it a symbol link, ``{code.replace('.', '/')}``")
    print(f"links: {len(nodes)} pages read, {len(problems)} unlinked mentions of a symbol with a page")
    return 1 if problems else 0


def self_test():
    """The check sees an unlinked mention, and passes a linked one, a shared name, a
    page's mention of itself and a word that is no symbol."""

    def symbol(title, kind, abstract):
        return {"kind": "symbol", "metadata": {"title": title, "symbolKind": kind}, "abstract": abstract}

    def voice(code):
        return [{"type": "codeVoice", "code": code}]

    nodes = [
        ("/documentation/keepports", symbol("KeepPorts", "module", [])),
        ("/documentation/keepports/storageerror", symbol("StorageError", "struct", voice("StorageError"))),
        ("/documentation/keepports/storageerror/code", symbol("Code", "struct", [])),
        ("/documentation/keepports/secretserror/code", symbol("Code", "struct", [])),
        ("/documentation/keepports/secretserror", symbol("SecretsError", "struct", [])),
        ("/documentation/keepports/storageport", symbol("StoragePort", "protocol", [])),
        ("/documentation/keepports/storageport/read(_:)", symbol("read(_:)", "method", [])),
        ("/documentation/keepfilestore/filestore",
         symbol("FileStore", "class",
                voice("StoragePort") + voice("Code") + voice("fsync") + voice("StoragePort.read(_:)")
                + [{"type": "reference", "identifier": "doc://x/StorageError"}])),
    ]
    found = unlinked(nodes)
    expected = [
        ("/documentation/keepfilestore/filestore", "StoragePort", "/documentation/keepports/storageport"),
        ("/documentation/keepfilestore/filestore", "StoragePort.read(_:)",
         "/documentation/keepports/storageport/read(_:)"),
    ]
    assert found == expected, found
    assert order(["B", "A", "C"], {"targets": [
        {"name": "A", "dependencies": []},
        {"name": "B", "dependencies": [{"byName": ["A", None]}]},
        {"name": "C", "dependencies": [{"target": ["B", None]}, {"product": ["X", "pkg", None, None]}]},
    ]}) == ["A", "B", "C"]
    assert spi_targets("builder:\n  configs:\n    - documentation_targets: [A, B]\n") == ["A", "B"]
    print("doc_site: self-test passed (an unlinked mention is seen; linked, shared and self mentions pass;"
          " libraries are ordered after their dependencies)")
    return 0


def main(arguments):
    if arguments == ["--self-test"]:
        return self_test()
    if arguments[:1] == ["order"]:
        manifest = json.load(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8"))
        print("\n".join(order(arguments[1:], manifest)))
        return 0
    if len(arguments) >= 2 and arguments[0] == "spi":
        return spi(arguments[1], arguments[2:])
    if len(arguments) == 2 and arguments[0] == "finish":
        print(f"finish: keep.css on {finish(arguments[1])} pages")
        return 0
    if len(arguments) == 2 and arguments[0] == "links":
        return links(arguments[1])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
