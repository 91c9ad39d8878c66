#!/usr/bin/env python3
"""Writes the Swift code blocks of documentation pages as files a compiler can check.

Usage: doc_snippets.py OUTPUT_DIR PAGE.md...

Each ```swift block becomes OUTPUT_DIR/<page>_<n>.swift: its imports at the top, and its
statements inside an `async throws` function of their own (a block that declares a
function, a test for instance, is kept as it is). Prints the files written, one a line.
"""

import os
import re
import sys


def snippet(code, name):
    lines = code.rstrip("\n").split("\n")
    imports = [line for line in lines if line.startswith("import ")]
    body = [line for line in lines if not line.startswith("import ")]
    if any(re.match(r"\s*(@\w+.*\n?)?\s*(public |private )?func ", line) for line in body):
        return "\n".join(imports + body) + "\n"
    indented = ["    " + line if line.strip() else "" for line in body]
    return "\n".join(imports + [f"func {name}() async throws {{"] + indented + ["}"]) + "\n"


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    out = argv[1]
    os.makedirs(out, exist_ok=True)
    for page in argv[2:]:
        base = os.path.splitext(os.path.basename(page))[0]
        with open(page) as file:
            blocks = re.findall(r"^```swift\n(.*?)^```", file.read(), re.S | re.M)
        for index, code in enumerate(blocks):
            name = f"{base}_{index}"
            path = os.path.join(out, name + ".swift")
            with open(path, "w") as file:
                file.write(snippet(code, "example_" + name))
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
