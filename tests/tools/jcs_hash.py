#!/usr/bin/env python3
"""Independent RFC 8785 (JCS) canonicalizer: reads a world document on stdin and prints
sha256:<hex> of the canonical form of its "world" object. Written separately from the Rust
implementation (different language, different number formatter) so the state hash can be
checked by a second implementation."""
import hashlib
import json
import sys


def es_number(x):
    """ECMAScript Number.prototype.toString for a finite double, from Python's shortest repr."""
    if x == 0:
        return "0"
    if x != x or x in (float("inf"), float("-inf")):
        raise ValueError("not finite")
    sign = "-" if x < 0 else ""
    r = repr(abs(x))  # shortest round-trip digits
    if "e" in r:
        mant, exp = r.split("e")
        exp = int(exp)
    else:
        mant, exp = r, 0
    if "." in mant:
        ip, fp = mant.split(".")
    else:
        ip, fp = mant, ""
    if fp == "0":
        fp = ""
    digits = (ip + fp).lstrip("0")
    # value = 0.digits * 10^n
    lead_zeros = len(ip + fp) - len((ip + fp).lstrip("0"))
    n = len(ip) + exp - lead_zeros
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    if k <= n <= 21:
        s = digits + "0" * (n - k)
    elif 0 < n <= 21:
        s = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        s = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        s = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-") + str(abs(e))
    return sign + s


def canon(v):
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, (int, float)):
        return es_number(float(v))
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ",".join(canon(i) for i in v) + "]"
    if isinstance(v, dict):
        keys = sorted(v.keys(), key=lambda k: k.encode("utf-16-be"))
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + canon(v[k]) for k in keys) + "}"
    raise TypeError(type(v))


doc = json.loads(sys.stdin.read())
print("sha256:" + hashlib.sha256(canon(doc["world"]).encode("utf-8")).hexdigest())
