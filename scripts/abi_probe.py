#!/usr/bin/env python3
"""Write the two C programs the ABI check (scripts/abi_check.sh) builds from a header.

    python3 scripts/abi_probe.py HEADER OUT_DIR

The declarations come from the header itself, as clang parses it (its JSON syntax tree), and
its constants from the preprocessor (`clang -dM -E`): whatever the header declares beyond the
system headers it includes is the ABI, so a new export, type or constant is covered without
editing this script.

OUT_DIR/probe.c   one global variable per declaration, built with -g into a shared object for
                  abidw: `__typeof__(&mjb_f)` per function (its exact signature, without linking
                  the library), a pointer per struct, enum and typedef (their layout and
                  enumerators). abidw records the types of exported variables only, and Rust's
                  debug information does not describe the header's C types.
OUT_DIR/facts.c   a program printing one fact per line, `KIND NAME = VALUE`, as the compiler
                  evaluates it: every constant (type and value), enumerator, function, struct
                  size and alignment, member offset and size. The facts catch what abidiff
                  counts as harmless (a renamed member) and what it never sees (a `#define`).
"""

import json
import os
import re
import subprocess
import sys

# The release's own number changes at every release: it is not a promise of the ABI.
NOT_ABI = {"MJB_VERSION", "MJB_VERSION_MAJOR", "MJB_VERSION_MINOR", "MJB_VERSION_PATCH"}

# Only the declarations matter here: attributes (deprecation) are not part of the ABI, and a
# deprecated function named in the probe must not warn.
DEFINES = ["-DMJB_DEPRECATED(msg)="]


def clang(args, source):
    cmd = ["clang", "-x", "c", "-std=c11", *DEFINES, *args, "-"]
    out = subprocess.run(cmd, input=source, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"abi_probe.py: {' '.join(cmd)} failed:\n{out.stderr}")
    return out.stdout


def declarations(source):
    """(kind, name) -> node of every named top-level declaration clang sees in `source`."""
    tree = json.loads(clang(["-fsyntax-only", "-Xclang", "-ast-dump=json"], source))
    found = {}
    for node in tree.get("inner", []):
        if node.get("isImplicit") or not node.get("name"):
            continue
        key = (node["kind"], node["name"])
        # A struct declared ahead and defined later: keep the definition.
        if key not in found or node.get("completeDefinition"):
            found[key] = node
    return found


def macros(source):
    """name -> body of every object-like macro defined after preprocessing `source`."""
    found = {}
    for line in clang(["-E", "-dM"], source).splitlines():
        m = re.match(r"#define (\w+)(\(?)(.*)$", line)
        if m and not m.group(2):
            found[m.group(1)] = m.group(3).strip()
    return found


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    header, out_dir = os.path.abspath(sys.argv[1]), sys.argv[2]
    text = open(header, encoding="utf-8").read()
    # The system headers the header includes: what they declare is not the header's.
    system = "".join(
        f"{m.group(0).strip()}\n"
        for m in re.finditer(r"^[ \t]*#[ \t]*include[ \t]*<[^>]+>", text, re.M)
    )
    own_source = system + f'#include "{header}"\n'
    decls = declarations(own_source)
    for key in declarations(system):
        decls.pop(key, None)
    system_macros = macros(system)
    constants = {
        name: body
        for name, body in macros(own_source).items()
        if name not in system_macros and body and name not in NOT_ABI
    }

    probe = [f'#include "{header}"\n']
    facts = [
        "#include <stddef.h>\n#include <stdio.h>\n",
        f'#include "{header}"\n',
        "static void s(const char *n, const char *ty, long long v) "
        "{ printf(\"%s = %s %lld\\n\", n, ty, v); }\n"
        "static void u(const char *n, const char *ty, unsigned long long v) "
        "{ printf(\"%s = %s %llu\\n\", n, ty, v); }\n"
        "static void f(const char *n, const char *ty, double v) "
        "{ printf(\"%s = %s %.17g\\n\", n, ty, v); }\n"
        "static void t(const char *n, const char *ty, const char *v) "
        "{ printf(\"%s = %s \\\"%s\\\"\\n\", n, ty, v); }\n"
        "#define TYPE(x) _Generic((x), char *: \"char *\", const char *: \"const char *\", "
        "float: \"float\", double: \"double\", long double: \"long double\", _Bool: \"_Bool\", "
        "char: \"char\", signed char: \"signed char\", unsigned char: \"unsigned char\", "
        "short: \"short\", unsigned short: \"unsigned short\", int: \"int\", "
        "unsigned int: \"unsigned int\", long: \"long\", unsigned long: \"unsigned long\", "
        "long long: \"long long\", unsigned long long: \"unsigned long long\")\n"
        "#define FACT(label, x) _Generic((x), char *: t, const char *: t, float: f, double: f, "
        "long double: f, _Bool: u, unsigned char: u, unsigned short: u, unsigned int: u, "
        "unsigned long: u, unsigned long long: u, default: s)(label, TYPE(x), x)\n",
        "int main(void) {\n",
    ]
    for name in sorted(constants):
        facts.append(f'  FACT("constant {name}", {name});\n')
    for (kind, name), node in sorted(decls.items()):
        if kind in ("FunctionDecl", "VarDecl"):
            probe.append(f"__typeof__(&{name}) mjb_abi_{name};\n")
            what = "function" if kind == "FunctionDecl" else "variable"
            facts.append(f'  puts("{what} {name} = declared");\n')
        elif kind == "RecordDecl":
            tag = node.get("tagUsed", "struct")
            probe.append(f"{tag} {name} *mjb_abi_{tag}_{name};\n")
            if not node.get("completeDefinition"):
                facts.append(f'  puts("{tag} {name} = opaque");\n')
                continue
            facts.append(
                f'  printf("{tag} {name} = size %zu, align %zu\\n", '
                f"sizeof({tag} {name}), _Alignof({tag} {name}));\n"
            )
            for field in node.get("inner", []):
                if field.get("kind") != "FieldDecl":
                    continue
                member = field["name"]
                facts.append(
                    f'  printf("member {name}.{member} = offset %zu, size %zu\\n", '
                    f"offsetof({tag} {name}, {member}), sizeof((({tag} {name} *)0)->{member}));\n"
                )
        elif kind == "EnumDecl":
            probe.append(f"enum {name} *mjb_abi_enum_{name};\n")
            for e in node.get("inner", []):
                if e.get("kind") == "EnumConstantDecl":
                    facts.append(f'  FACT("enumerator {name}.{e["name"]}", {e["name"]});\n')
        elif kind == "TypedefDecl":
            probe.append(f"{name} *mjb_abi_typedef_{name};\n")
            facts.append(f'  puts("typedef {name} = declared");\n')
        else:
            sys.exit(f"abi_probe.py: {header} declares {kind} {name}, which this probe does not know")
    facts.append("  return 0;\n}\n")
    with open(f"{out_dir}/probe.c", "w", encoding="utf-8") as out:
        out.writelines(probe)
    with open(f"{out_dir}/facts.c", "w", encoding="utf-8") as out:
        out.writelines(facts)


if __name__ == "__main__":
    main()
