"""Print the Python binding's view of the ABI, one fact a line, for tests/bindings.rs to compare
with the header (and with sizeof/offsetof printed by a C program):
  enum <Type> <Member> <value>
  struct <Type> <sizeof>
  field <Type> <field> <offset> <size>
  const <NAME> <value>
  function <name> <return kind> <argument kinds...>
Nothing is loaded: only the declarations are read. Usage: python3 abi_dump.py <bindings/python>
"""

import ctypes
import enum
import sys

sys.path.insert(0, sys.argv[1])

import mjbridge  # noqa: E402
from mjbridge import _native  # noqa: E402


def kind(t):
    if t is None:
        return "void"
    if t in (ctypes.c_void_p, ctypes.c_char_p):
        return "ptr"
    if isinstance(t, type) and issubclass(t, ctypes._CFuncPtr):  # a CFUNCTYPE callback
        return "fn"
    if isinstance(t, type) and issubclass(t, ctypes._Pointer):
        inner = t._type_
        if issubclass(inner, ctypes.Structure):
            return "ref:" + inner.__name__
        return kind(inner) + "*"
    if t is ctypes.c_bool:
        return "bool"
    if t in (ctypes.c_double, ctypes.c_float):
        return "f%d" % (8 * ctypes.sizeof(t))
    if isinstance(t, type) and issubclass(t, ctypes._SimpleCData):
        signed = t(-1).value < 0
        return ("i" if signed else "u") + str(8 * ctypes.sizeof(t))
    return "?" + getattr(t, "__name__", repr(t))


for name in sorted(dir(mjbridge)):
    obj = getattr(mjbridge, name)
    if isinstance(obj, type) and issubclass(obj, enum.IntEnum) and obj is not enum.IntEnum:
        for m in obj:
            print("enum", obj.__name__, m.name, m.value)
    elif isinstance(obj, type) and issubclass(obj, ctypes.Structure):
        print("struct", name, ctypes.sizeof(obj))
        for f, t in obj._fields_:
            print("field", name, f, getattr(obj, f).offset, getattr(obj, f).size)
    elif name.isupper() and isinstance(obj, (int, str)):
        print("const", name, obj)
for name, (restype, argtypes) in _native.SIGNATURES.items():
    print(" ".join(["function", name, kind(restype)] + [kind(a) for a in argtypes]))
