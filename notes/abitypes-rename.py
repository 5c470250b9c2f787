#!/usr/bin/env python3
"""Retire the transitional C spellings of the domain outcome and reason.

`Outcome::MJB_OK` -> `Outcome::Ok`, `Reason::MJB_REASON_MALFORMED_JSON` ->
`Reason::MalformedJson` (also through `mjbridge::outcome::` and `crate::outcome::` paths)
in the files given (default: every .rs file under src/, tests/, benches/, examples/, fuzz/
except src/ffi/enums.rs, where the C enums keep their C names). Run it after the branches
in flight are merged; then delete the ` | MJB_...` tails in src/outcome.rs (--drop-aliases
does that) and build: what still names an alias fails to compile.
"""
import pathlib
import re
import sys


def camel(c_name: str, prefix: str) -> str:
    return "".join(w.capitalize() for w in c_name[len(prefix):].lower().split("_"))


def rewrite(text: str) -> str:
    text = re.sub(r"\bOutcome::(MJB_[A-Z_]+)\b",
                  lambda m: "Outcome::" + camel(m.group(1), "MJB_"), text)
    text = re.sub(r"\bReason::(MJB_REASON_[A-Z0-9_]+)\b",
                  lambda m: "Reason::" + camel(m.group(1), "MJB_REASON_"), text)
    return text


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--drop-aliases"]
    root = pathlib.Path(__file__).resolve().parent.parent
    files = [pathlib.Path(a) for a in args] or [
        p for d in ("src", "tests", "benches", "examples", "fuzz")
        for p in (root / d).rglob("*.rs") if p.name != "enums.rs"
    ]
    for p in files:
        old = p.read_text()
        new = rewrite(old)
        if p.name == "outcome.rs" and "--drop-aliases" in sys.argv:
            new = re.sub(r'(= "MJB_[A-Z0-9_]+") \| MJB_[A-Z0-9_]+,', r"\1,", new)
        if new != old:
            p.write_text(new)
            print("rewrote", p)


if __name__ == "__main__":
    main()
