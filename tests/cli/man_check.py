#!/usr/bin/env python3
"""Checks man/*.3 against the library (used by tests/cli/man_pages.sh).

  man_check.py covered NAME...   names without `man 3 NAME`: no man/NAME.3, a .so link whose
                                 target is missing, or a page whose NAME section omits NAME
  man_check.py synopsis          SYNOPSIS prototypes that are not, whitespace aside, a
                                 declaration of include/perfring/*.h
  man_check.py public            the public inline functions and function-like macros
Each prints one line per problem (nothing when all is well).
"""
import glob
import os
import re
import shlex
import sys

MAN = "man"
HEADERS = sorted(glob.glob("include/perfring/*.h"))


def norm(s):
    s = re.sub(r"\s+", " ", s).strip()
    s = re.sub(r"\s*([*(),\[\]])\s*", r"\1", s)
    # "struct x *p" and "struct x*p" are one thing; keep a space between words only.
    return s


def header_text(path):
    t = open(path).read()
    t = re.sub(r"/\*.*?\*/", " ", t, flags=re.S)
    t = re.sub(r"//[^\n]*", " ", t)
    t = re.sub(r'extern "C" \{', " ", t)
    t = re.sub(r"#ifdef __cplusplus\s*\}\s*#endif", " ", t)
    # Preprocessor lines (with their continuations) are not declarations.
    t = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", " ", t, flags=re.M)
    return t


def header_decls():
    """Top-level function declarations (and inline definitions' heads): name -> [normalized]."""
    decls = {}
    for h in HEADERS:
        t = header_text(h)
        depth, start, i = 0, 0, 0
        while i < len(t):
            c = t[i]
            if c == "{":
                if depth == 0:
                    add_decl(decls, t[start:i])
                depth += 1
                start = i + 1
            elif c == "}":
                depth -= 1
                start = i + 1
            elif c == ";" and depth == 0:
                add_decl(decls, t[start:i])
                start = i + 1
            i += 1
    return decls


def add_decl(decls, text):
    text = text.replace("PERFRING_API", " ")
    m = re.search(r"\b(perfring_\w+)\s*\(", text)
    if not m or text.lstrip().startswith(("struct ", "enum ", "union ")) and "(" not in text[: m.start()] and \
            not re.search(r"\)\s*$", text):
        return
    if re.search(r"\(\s*\*\s*" + m.group(1), text):
        return  # a function pointer typedef
    decls.setdefault(m.group(1), []).append(norm(text))


def roff_line_text(line):
    """The text a .B/.BI/.I/... SYNOPSIS line shows."""
    m = re.match(r"^\.(B|I|BI|IB|BR|RB|IR|RI)(?:\s+(.*))?$", line)
    if not m:
        return None
    args = m.group(2) or ""
    args = args.replace("\\-", "-").replace("\\(aq", "'").replace("\\e", "\\")
    args = re.sub(r"\\f[BIRP]", "", args).replace("\\&", "")
    try:
        parts = shlex.split(args.replace('""', "\x01"), posix=True)
    except ValueError:
        parts = args.split()
    parts = [p.replace("\x01", '"') for p in parts]
    return (" " if m.group(1) in ("B", "I") else "").join(parts)


def page_sections(path):
    secs, cur = {}, None
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if line.startswith(".SH "):
            cur = line[4:].strip().strip('"')
            secs[cur] = []
        elif cur:
            secs[cur].append(line)
    return secs


def synopsis_protos(path):
    """Prototypes (statements with 'perfring_x(' as the declarator) in a page's SYNOPSIS."""
    stmts, acc = [], ""
    for line in page_sections(path).get("SYNOPSIS", []):
        txt = roff_line_text(line)
        if txt is None or txt.startswith("#"):
            continue
        acc += " " + txt
        if acc.rstrip().endswith(";"):
            stmts.append(acc.strip()[:-1])
            acc = ""
    out = []
    for s in stmts:
        if s.startswith(("typedef", "struct ", "enum ", "#define")) and not re.search(r"\w\s*\(", s.split("(")[0] + "("):
            continue
        m = re.search(r"\b(perfring_\w+)\s*\(", s)
        if not m or re.search(r"\(\s*\*\s*" + m.group(1), s) or s.startswith("typedef"):
            continue
        out.append((m.group(1), norm(s)))
    return out


def name_section(path):
    return " ".join(page_sections(path).get("NAME", []))


def covered(names):
    for n in names:
        p = os.path.join(MAN, n + ".3")
        if not os.path.exists(p):
            print(f"{n}: no man/{n}.3")
            continue
        first = open(p).readline()
        if first.startswith(".so "):
            target = os.path.join(MAN, os.path.basename(first.split()[1]))
            if not os.path.exists(target):
                print(f"{n}: man/{n}.3 links to missing {target}")
                continue
            p = target
        if not re.search(r"(^|[\s,])" + re.escape(n) + r"($|[\s,])", name_section(p).replace("\\-", "-")):
            print(f"{n}: the NAME section of {p} does not name it")


def synopsis():
    decls = header_decls()
    for p in sorted(glob.glob(os.path.join(MAN, "*.3"))):
        if open(p).readline().startswith(".so "):
            continue
        for name, proto in synopsis_protos(p):
            want = decls.get(name)
            if not want:
                print(f"{os.path.basename(p)}: {name} is not declared in include/perfring/*.h")
            elif proto not in want:
                print(f"{os.path.basename(p)}: '{proto}' is not the header's '{want[0]}'")


def public():
    for h in HEADERS:
        t = open(h).read()
        for m in re.finditer(r"static inline [^;{]*?\b(perfring_\w+)\s*\(", t):
            print(m.group(1))
        for m in re.finditer(r"#define (PERFRING_\w+)\(", t):
            print(m.group(1))


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "covered":
        covered(sys.argv[2:])
    elif cmd == "synopsis":
        synopsis()
    elif cmd == "public":
        public()
    else:
        sys.exit(__doc__)
