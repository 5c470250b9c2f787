//! Coverage and drift of the bindings. The exports, enums, structs and constants are derived
//! from `include/mjbridge.h` (so a new export, value or field is covered without touching this
//! test), then compared with:
//! - the C++ wrapper (`bindings/cpp/mjbridge.hpp`): every export is called (a plain read whose
//!   `_info` form, the same call plus a trailing `mjb_read_info*`, is called counts as wrapped);
//! - the C# binding (reflection over `bindings/csharp/MjBridge.cs`, on Mono): every export has a
//!   DllImport whose parameter and return kinds fit the C types, every enum value, struct size,
//!   field offset and field size (C `sizeof`/`offsetof` from a compiled C program), every constant;
//! - the Python binding (`bindings/python/mjbridge`): the same, from its ctypes declarations.
//!
//! A binding that lacks an export, declares a pointer-returning function with an integer result,
//! marshals a C bool as four bytes, or disagrees on a value or an offset fails here. A C type
//! the mapping tables below do not know fails too, naming the function: extend the table and the
//! bindings together.

#[path = "common/toolchain.rs"]
mod toolchain;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;
use toolchain::{out_dir, root, run, tool};

// ---------------------------------------------------------------------------------------------
// The header

#[derive(Debug)]
struct Function {
    name: String,
    /// Normalised C types: no `const`/`struct`, no spaces (`char*`, `mjb_endpoint**`).
    ret: String,
    params: Vec<String>,
}

#[derive(Debug)]
struct Header {
    functions: Vec<Function>,
    /// `mjb_outcome` -> [(`MJB_OK`, 0), ...]
    enums: BTreeMap<String, Vec<(String, i64)>>,
    /// `mjb_report` -> field names in order
    structs: BTreeMap<String, Vec<String>>,
    /// Function-pointer typedefs (`mjb_log_fn`): a binding passes a Cdecl delegate / CFUNCTYPE.
    callbacks: BTreeSet<String>,
    /// `MJB_WAIT_FOREVER` -> `4294967295`, `MJB_VERSION` -> `"0.2.0"`: as written (the C
    /// program evaluates them).
    defines: BTreeMap<String, String>,
    /// Deprecated exports (`MJB_DEPRECATED("use mjb_world_read, ...")`) -> their replacement.
    deprecated: BTreeMap<String, String>,
}

fn header() -> Header {
    let h = parse_header(&std::fs::read_to_string(root().join("include/mjbridge.h")).unwrap());
    assert!(h.functions.len() >= 23, "{:?}", h.functions);
    assert!(h.enums.contains_key("mjb_outcome") && h.enums.contains_key("mjb_reason"));
    assert!(h.structs.contains_key("mjb_report") && h.structs.contains_key("mjb_safety_state"));
    h
}

fn parse_header(text: &str) -> Header {
    // Comments out.
    let mut clean = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("/*") {
        clean.push_str(&rest[..i]);
        rest = &rest[i + rest[i..].find("*/").expect("closed comment") + 2..];
    }
    clean.push_str(rest);
    let mut defines = BTreeMap::new();
    let mut code = String::new();
    for line in clean.lines() {
        let line = line.split("//").next().unwrap().trim();
        if let Some(d) = line.strip_prefix("#define MJB_") {
            let mut parts = d.splitn(2, char::is_whitespace);
            let name = format!("MJB_{}", parts.next().unwrap());
            let value = parts.next().unwrap_or("").trim().to_owned();
            // The export macro is no constant of the ABI, nor is a function-like macro
            // (MJB_DEPRECATED).
            if name != "MJB_API" && !name.contains('(') {
                defines.insert(name, value);
            }
        }
        // Preprocessor lines and the extern "C" braces are not declarations.
        if line.starts_with('#') || line == "extern \"C\" {" || line == "}" {
            continue;
        }
        code.push_str(line);
        code.push('\n');
    }
    // Top-level statements: split at `;` outside braces.
    let mut statements = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in code.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ';' if depth == 0 => {
                statements.push(code[start..i].trim().to_owned());
                start = i + 1;
            }
            _ => {}
        }
    }
    let mut h = Header {
        functions: Vec::new(),
        enums: BTreeMap::new(),
        structs: BTreeMap::new(),
        callbacks: BTreeSet::new(),
        defines,
        deprecated: BTreeMap::new(),
    };
    // `MJB_API` (the export macro) is not part of a declaration's type.
    for s in statements.iter().map(|s| {
        let s = s.replace('\n', " ");
        s.strip_prefix("MJB_API ").map(str::to_owned).unwrap_or(s)
    }) {
        // `MJB_DEPRECATED("use <replacement>...")` (an attribute, not part of the type).
        let (s, replacement) = match s.strip_prefix("MJB_DEPRECATED(\"") {
            Some(rest) => {
                let end = rest.find("\")").expect("closed MJB_DEPRECATED");
                let note = &rest[..end];
                let replacement = note
                    .strip_prefix("use ")
                    .and_then(|r| r.split(|c: char| !(c.is_alphanumeric() || c == '_')).next())
                    .unwrap_or_else(|| panic!("MJB_DEPRECATED note names no replacement: {note}"));
                (
                    rest[end + 2..].trim().to_owned(),
                    Some(replacement.to_owned()),
                )
            }
            None => (s, None),
        };
        let body = |s: &str| s[s.find('{').unwrap() + 1..s.rfind('}').unwrap()].to_owned();
        if let Some(rest) = s.strip_prefix("enum ") {
            let name = rest.split_whitespace().next().unwrap().to_owned();
            let members = body(&s)
                .split(',')
                .map(str::trim)
                .filter(|m| !m.is_empty())
                .map(|m| {
                    let (n, v) = m.split_once('=').expect("explicit enum value");
                    (
                        n.trim().to_owned(),
                        v.trim().parse().expect("integer value"),
                    )
                })
                .collect();
            h.enums.insert(name, members);
        } else if s.starts_with("typedef struct") && s.contains('{') {
            let name = s.split_whitespace().nth(2).unwrap().to_owned();
            let fields = body(&s)
                .split(';')
                .map(str::trim)
                .filter(|f| !f.is_empty())
                .map(|f| {
                    let decl = f.split('[').next().unwrap();
                    decl.rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .next()
                        .unwrap()
                        .to_owned()
                })
                .collect();
            h.structs.insert(name, fields);
        } else if let Some(rest) = s.strip_prefix("typedef").filter(|r| r.contains("(*")) {
            // A function-pointer type: `typedef void (*mjb_log_fn)(void *user_data, ...)`.
            let name = &rest[rest.find("(*").unwrap() + 2..];
            h.callbacks
                .insert(name[..name.find(')').unwrap()].trim().to_owned());
        } else if s.starts_with("typedef") || s.starts_with("struct ") || s.is_empty() {
            continue;
        } else if let Some(open) = s.find('(') {
            let name_start = s[..open]
                .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
                .map_or(0, |i| i + 1);
            let name = s[name_start..open].to_owned();
            let ret = normalise(&s[..name_start]);
            let inner = &s[open + 1..s.rfind(')').unwrap()];
            let params = split_params(inner)
                .into_iter()
                .filter(|p| p != "void" && !p.is_empty())
                .map(|p| param_type(&p))
                .collect();
            if let Some(r) = replacement {
                h.deprecated.insert(name.clone(), r);
            }
            h.functions.push(Function { name, ret, params });
        }
    }
    h.functions.retain(|f| !f.name.starts_with("mjb_test_"));
    h
}

/// Parameters split at commas outside parentheses (function-pointer parameters stay whole).
fn split_params(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let (mut depth, mut cur) = (0, String::new());
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_owned());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur.trim().to_owned());
    out
}

/// The type of a parameter declaration: its last identifier (the name) dropped.
fn param_type(p: &str) -> String {
    if p.contains("(*") {
        return "fnptr".into();
    }
    let name_start = p
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    normalise(&p[..name_start])
}

fn normalise(t: &str) -> String {
    t.split(|c: char| c.is_whitespace() || c == '*')
        .filter(|w| !w.is_empty() && !matches!(*w, "const" | "struct" | "enum"))
        .collect::<String>()
        + &"*".repeat(t.matches('*').count())
}

/// `safety_state` / `MALFORMED_JSON` -> `SafetyState` / `MalformedJson`.
fn pascal(s: &str) -> String {
    s.split('_')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let lower = w.to_ascii_lowercase();
            let mut c = lower.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// The binding-side name of a header struct or enum type: `mjb_safety_state` -> `SafetyState`.
fn type_name(c: &str) -> String {
    pascal(c.strip_prefix("mjb_").unwrap_or(c))
}

/// The common prefix of an enum's members up to an underscore (`MJB_REASON_`).
fn member_prefix(members: &[(String, i64)]) -> String {
    let first = &members[0].0;
    let mut len = first.len();
    for (m, _) in members {
        len = len.min(
            first
                .chars()
                .zip(m.chars())
                .take_while(|(a, b)| a == b)
                .count(),
        );
    }
    first[..first[..len].rfind('_').map_or(0, |i| i + 1)].to_owned()
}

/// The facts a binding must state, in the dump format the C# and Python dumpers print.
fn expected_facts(
    h: &Header,
    layout: &Layout,
    member: fn(&str) -> String,
    field: fn(&str) -> String,
    constant: fn(&str) -> String,
) -> BTreeSet<String> {
    let mut want = BTreeSet::new();
    for (e, members) in &h.enums {
        let prefix = member_prefix(members);
        for (m, v) in members {
            let name = member(m.strip_prefix(&prefix).unwrap());
            want.insert(format!("enum {} {name} {v}", type_name(e)));
        }
    }
    for (s, fields) in &h.structs {
        let t = type_name(s);
        want.insert(format!("struct {t} {}", layout.sizes[s]));
        for f in fields {
            let (off, size) = layout.fields[&(s.clone(), f.clone())];
            want.insert(format!("field {t} {} {off} {size}", field(f)));
        }
    }
    for (d, v) in &layout.constants {
        want.insert(format!(
            "const {} {v}",
            constant(d.strip_prefix("MJB_").unwrap())
        ));
    }
    want
}

// ---------------------------------------------------------------------------------------------
// C layout: sizeof/offsetof from a compiled C program

struct Layout {
    sizes: BTreeMap<String, usize>,
    fields: BTreeMap<(String, String), (usize, usize)>,
    /// The `#define`s as the C compiler evaluates them (`(uint32_t)UINT32_MAX` -> 4294967295).
    constants: BTreeMap<String, String>,
}

/// Built once per test binary (the tests run in parallel and would race on the files).
fn c_layout(h: &Header) -> Option<&'static Layout> {
    static LAYOUT: std::sync::OnceLock<Option<Layout>> = std::sync::OnceLock::new();
    LAYOUT.get_or_init(|| build_c_layout(h)).as_ref()
}

fn build_c_layout(h: &Header) -> Option<Layout> {
    let cc = tool("CC", "cc")?;
    let mut src = String::from(
        "#include <stddef.h>\n#include <stdio.h>\n#include \"mjbridge.h\"\nint main(void) {\n",
    );
    for (s, fields) in &h.structs {
        src += &format!("  printf(\"struct {s} %zu\\n\", sizeof({s}));\n");
        for f in fields {
            src += &format!(
                "  printf(\"field {s} {f} %zu %zu\\n\", offsetof({s}, {f}), sizeof((({s}*)0)->{f}));\n"
            );
        }
    }
    for (d, v) in &h.defines {
        if v.starts_with('"') {
            src += &format!("  printf(\"const {d} %s\\n\", {d});\n");
        } else {
            src += &format!("  printf(\"const {d} %lld\\n\", (long long)({d}));\n");
        }
    }
    src += "  return 0;\n}\n";
    let dir = out_dir();
    let c = dir.join("abi_layout.c");
    std::fs::write(&c, src).unwrap();
    let exe = dir.join("abi_layout");
    let o = Command::new(cc)
        .args(["-std=c11", "-Wall", "-Werror", "-I"])
        .arg(root().join("include"))
        .arg(&c)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = run(&exe, &[], &[]);
    let mut l = Layout {
        sizes: BTreeMap::new(),
        fields: BTreeMap::new(),
        constants: BTreeMap::new(),
    };
    for line in out.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w[0] {
            "const" => {
                l.constants.insert(w[1].into(), w[2..].join(" "));
            }
            "struct" => {
                l.sizes.insert(w[1].into(), w[2].parse().unwrap());
            }
            _ => {
                l.fields.insert(
                    (w[1].into(), w[2].into()),
                    (w[3].parse().unwrap(), w[4].parse().unwrap()),
                );
            }
        }
    }
    Some(l)
}

// ---------------------------------------------------------------------------------------------
// Type mapping: which binding-side kinds fit a C type

fn scalar(t: &str) -> Option<&'static str> {
    Some(match t {
        "mjb_outcome" | "mjb_reason" | "int32_t" | "int" => "i32",
        "uint32_t" | "unsigned" => "u32",
        "int64_t" => "i64",
        "uint64_t" => "u64",
        "uint8_t" => "u8",
        "double" => "f64",
        "float" => "f32",
        "bool" => "bool",
        "void" => "void",
        _ => return None,
    })
}

/// Opaque handles and MuJoCo's own types: pointers the bindings never look into.
fn opaque(t: &str) -> bool {
    matches!(
        t,
        "mjb_endpoint"
            | "mjb_restore_point"
            | "mjb_frame_reader"
            | "mjb_string"
            | "mjModel_"
            | "mjData_"
            | "void"
            | "char"
    )
}

fn cs_kinds(t: &str, is_return: bool, h: &Header) -> Vec<String> {
    let v = |k: &[&str]| k.iter().map(|s| s.to_string()).collect();
    if let Some(s) = scalar(t) {
        return vec![s.into()];
    }
    if h.callbacks.contains(t) {
        return v(&["fn"]);
    }
    match t {
        "size_t" => v(&["usize"]),
        "mjb_endpoint*" => v(&["handle", "ptr"]),
        "mjb_endpoint**" => v(&["out:handle"]),
        "mjb_restore_point*" => v(&["handle", "ptr"]),
        "mjb_restore_point**" => v(&["out:handle"]),
        "mjb_frame_reader*" => v(&["handle", "ptr"]),
        "mjb_frame_reader**" => v(&["out:handle"]),
        "mjb_string**" => v(&["out:ptr"]),
        "char*" if is_return => v(&["ptr"]),
        "char*" => v(&["bytes", "ptr"]),
        "double*" => v(&["f64[]", "ptr"]),
        "size_t*" => v(&["out:usize", "ref:usize"]),
        _ => {
            let Some(base) = t.strip_suffix('*') else {
                return vec![];
            };
            if h.structs.contains_key(base) {
                let n = type_name(base);
                // One struct by reference, or an array of them (with a count parameter).
                return vec![
                    format!("out:struct:{n}"),
                    format!("ref:struct:{n}"),
                    format!("in:struct:{n}"),
                    format!("struct[]:{n}"),
                ];
            }
            if opaque(base) {
                return v(&["ptr"]);
            }
            if let Some(s) = scalar(base) {
                return vec![format!("out:{s}"), format!("ref:{s}"), format!("{s}[]")];
            }
            vec![]
        }
    }
}

fn py_kinds(t: &str, h: &Header) -> Vec<String> {
    if t == "size_t" {
        return vec!["u64".into()];
    }
    if let Some(s) = scalar(t) {
        return vec![s.into()];
    }
    if h.callbacks.contains(t) {
        return vec!["fn".into()];
    }
    let Some(base) = t.strip_suffix('*') else {
        return vec![];
    };
    if h.structs.contains_key(base) {
        return vec![format!("ref:{}", type_name(base))];
    }
    if base == "size_t" {
        return vec!["u64*".into()];
    }
    if opaque(base) {
        return vec!["ptr".into()];
    }
    if let Some(s) = scalar(base) {
        return vec![format!("{s}*")];
    }
    if base.strip_suffix('*').is_some_and(opaque) {
        return vec!["ptr*".into()];
    }
    vec![]
}

/// Compare a binding's dump with the header: facts exactly, functions by kind.
fn check_binding(
    binding: &str,
    dump: &str,
    want_facts: &BTreeSet<String>,
    h: &Header,
    kinds: &dyn Fn(&str, bool) -> Vec<String>,
) {
    let mut problems = Vec::new();
    let got_facts: BTreeSet<String> = dump
        .lines()
        .filter(|l| !l.starts_with("function "))
        .map(str::to_owned)
        .collect();
    for missing in want_facts.difference(&got_facts) {
        problems.push(format!("header has `{missing}`, the binding does not"));
    }
    for extra in got_facts.difference(want_facts) {
        problems.push(format!("binding has `{extra}`, the header does not"));
    }
    let mut declared: BTreeMap<&str, Vec<Vec<&str>>> = BTreeMap::new();
    for l in dump.lines().filter_map(|l| l.strip_prefix("function ")) {
        let w: Vec<&str> = l.split_whitespace().collect();
        declared.entry(w[0]).or_default().push(w[1..].to_vec());
    }
    for f in &h.functions {
        let Some(decls) = declared.remove(f.name.as_str()) else {
            problems.push(format!("{} is not declared", f.name));
            continue;
        };
        for d in decls {
            let c_types: Vec<&str> = std::iter::once(f.ret.as_str())
                .chain(f.params.iter().map(String::as_str))
                .collect();
            if d.len() != c_types.len() {
                problems.push(format!(
                    "{}: {} parameters declared, the header has {}",
                    f.name,
                    d.len() - 1,
                    c_types.len() - 1
                ));
                continue;
            }
            for (i, (got, ct)) in d.iter().zip(&c_types).enumerate() {
                let allowed = kinds(ct, i == 0);
                let what = if i == 0 {
                    "return".to_owned()
                } else {
                    format!("parameter {i}")
                };
                if allowed.is_empty() {
                    problems.push(format!(
                        "{}: no {binding} mapping for the C type `{ct}` ({what}); extend the kind table in tests/bindings.rs and the binding together",
                        f.name
                    ));
                } else if !allowed.iter().any(|a| a == got) {
                    problems.push(format!(
                        "{}: {what} is `{got}` in {binding}, the C type `{ct}` needs one of {allowed:?}",
                        f.name
                    ));
                }
            }
        }
    }
    for extra in declared.keys() {
        problems.push(format!(
            "{extra} is declared but is not an export of the header"
        ));
    }
    assert!(
        problems.is_empty(),
        "{binding} binding drifted from include/mjbridge.h:\n  {}",
        problems.join("\n  ")
    );
}

// ---------------------------------------------------------------------------------------------
// The tests

#[test]
fn header_parser_sees_every_export_enum_and_struct() {
    let h = header();
    let step = h.functions.iter().find(|f| f.name == "mjb_step").unwrap();
    assert_eq!(step.ret, "mjb_outcome");
    assert_eq!(
        step.params,
        ["mjb_endpoint*", "uint32_t", "uint32_t", "mjb_report*"]
    );
    let open = h
        .functions
        .iter()
        .find(|f| f.name == "mjb_endpoint_open")
        .unwrap();
    assert_eq!(open.params, ["char*", "size_t", "mjb_endpoint**"]);
    let version = h
        .functions
        .iter()
        .find(|f| f.name == "mjb_version")
        .unwrap();
    assert_eq!((version.ret.as_str(), version.params.len()), ("char*", 0));
    assert_eq!(
        h.enums["mjb_reason"][22],
        ("MJB_REASON_STOP_LATCHED".into(), 22)
    );
    assert_eq!(member_prefix(&h.enums["mjb_outcome"]), "MJB_");
    assert_eq!(member_prefix(&h.enums["mjb_reason"]), "MJB_REASON_");
    assert_eq!(h.structs["mjb_safety_state"][1], "confirmed");
    assert!(h.defines.contains_key("MJB_WAIT_FOREVER"));
    // The reads that also say where they were supersede the plain reads, and nothing else.
    let superseded: BTreeSet<&str> = h
        .functions
        .iter()
        .filter(|f| superseded_by_info(&h, f).is_some())
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(
        superseded,
        BTreeSet::from(["mjb_checkpoint_read", "mjb_snapshot", "mjb_world_read"])
    );
    assert_eq!(
        h.defines["MJB_VERSION"],
        format!("\"{}\"", env!("CARGO_PKG_VERSION"))
    );
    // Every function the library exports (src/ffi/) is in the parsed header, and the other way
    // round.
    let mut lib = String::new();
    for e in std::fs::read_dir(root().join("src/ffi")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "rs") {
            lib += &std::fs::read_to_string(p).unwrap();
        }
    }
    let exported: BTreeSet<&str> = lib
        .match_indices("extern \"C\" fn mjb_")
        .map(|(i, _)| {
            let s = &lib[i + "extern \"C\" fn ".len()..];
            &s[..s.find('(').unwrap()]
        })
        .filter(|n| !n.starts_with("mjb_test_"))
        .collect();
    let parsed: BTreeSet<&str> = h.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(exported, parsed);
}

/// The parser and the kind tables also read what the header does not have yet: callbacks,
/// arrays of structs, out-scalars (a synthetic header, so this holds before such exports exist).
#[test]
fn header_parser_reads_callbacks_struct_arrays_and_out_scalars() {
    let h = parse_header(concat!(
        "#define MJB_X (uint32_t)UINT32_MAX\n",
        "typedef struct mjb_input {\n  int32_t field;\n  const double *values;\n  size_t n;\n} mjb_input;\n",
        "typedef void (*mjb_log_fn)(void *user_data, int32_t level, const char *message);\n",
        "#ifdef __cplusplus\nextern \"C\" {\n#endif\n",
        "mjb_outcome mjb_write(struct mjb_endpoint *ep, const struct mjb_input *inputs, size_t n);\n",
        "mjb_outcome mjb_set_log(mjb_log_fn callback, void *user_data, int32_t *out);\n",
        "#ifdef __cplusplus\n}\n#endif\n",
    ));
    assert_eq!(h.structs["mjb_input"], ["field", "values", "n"]);
    assert!(h.callbacks.contains("mjb_log_fn"));
    assert_eq!(h.defines["MJB_X"], "(uint32_t)UINT32_MAX");
    assert_eq!(
        h.functions[0].params,
        ["mjb_endpoint*", "mjb_input*", "size_t"]
    );
    assert!(cs_kinds("mjb_input*", false, &h).contains(&"struct[]:Input".to_owned()));
    assert_eq!(py_kinds("mjb_input*", &h), ["ref:Input"]);
    assert_eq!(h.functions[1].params, ["mjb_log_fn", "void*", "int32_t*"]);
    assert_eq!(cs_kinds("mjb_log_fn", false, &h), ["fn"]);
    assert_eq!(py_kinds("mjb_log_fn", &h), ["fn"]);
    assert_eq!(cs_kinds("void*", false, &h), ["ptr"]);
    assert_eq!(py_kinds("void*", &h), ["ptr"]);
    assert!(cs_kinds("int32_t*", false, &h).contains(&"out:i32".to_owned()));
    assert_eq!(py_kinds("int32_t*", &h), ["i32*"]);
}

/// The export `f` is superseded by `f_info`: the same parameters and one more, a trailing
/// nullable `mjb_read_info*` (a read that also says where the endpoint was). A wrapper that
/// calls `f_info` offers everything `f` does.
fn superseded_by_info<'h>(h: &'h Header, f: &Function) -> Option<&'h Function> {
    let info = h
        .functions
        .iter()
        .find(|g| g.name == format!("{}_info", f.name))?;
    let (last, first) = info.params.split_last()?;
    (last == "mjb_read_info*" && first == f.params.as_slice() && info.ret == f.ret).then_some(info)
}

/// The precondition twin of the mutation `f`: `f_if` (or, for the replacement of a deprecated
/// export, the deprecated name's `_if`) with the same parameters and a `const mjb_expect*`
/// after the handle. Its NULL (or flag-less) precondition is `f` exactly, so a wrapper whose
/// plain method calls the twin with no precondition offers everything `f` does.
fn if_twin<'h>(h: &'h Header, f: &Function) -> Option<&'h Function> {
    let mut names = vec![format!("{}_if", f.name)];
    names.extend(
        h.deprecated
            .iter()
            .filter(|(_, r)| **r == f.name)
            .map(|(d, _)| format!("{d}_if")),
    );
    h.functions.iter().find(|g| {
        names.contains(&g.name)
            && g.ret == f.ret
            && g.params.len() == f.params.len() + 1
            && g.params[1] == "mjb_expect*"
            && g.params[0] == f.params[0]
            && g.params[2..] == f.params[1..]
    })
}

/// Whether `text` calls or names the function `f` (as a whole identifier, followed by `(`, `,`,
/// `)` or a quote: `mjb_step` in `mjb_step_if(` does not count).
fn names_function(text: &str, f: &str) -> bool {
    text.match_indices(f).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + f.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && after.is_some_and(|c| matches!(c, '(' | ',' | ')' | '"'))
    })
}

#[test]
fn the_deprecated_exports_name_their_replacements_and_no_binding_calls_them() {
    let h = header();
    assert_eq!(
        h.deprecated,
        BTreeMap::from([
            ("mjb_snapshot".to_owned(), "mjb_world_read".to_owned()),
            (
                "mjb_snapshot_info".to_owned(),
                "mjb_world_read_info".to_owned()
            ),
            ("mjb_step".to_owned(), "mjb_endpoint_step".to_owned()),
        ])
    );
    for (old, new) in &h.deprecated {
        let (a, b) = (
            h.functions.iter().find(|f| &f.name == old).unwrap(),
            h.functions.iter().find(|f| &f.name == new).unwrap(),
        );
        assert_eq!((&a.ret, &a.params), (&b.ret, &b.params), "{old} and {new}");
    }
    // The idiomatic layers call the replacements; the raw declarations (C# `Native`, Python's
    // ctypes table) keep every export, deprecated ones included.
    let cpp = std::fs::read_to_string(root().join("bindings/cpp/mjbridge.hpp")).unwrap();
    let cs = std::fs::read_to_string(root().join("bindings/csharp/MjBridge.cs")).unwrap();
    let py = std::fs::read_to_string(root().join("bindings/python/mjbridge/__init__.py")).unwrap();
    for old in h.deprecated.keys() {
        assert!(!names_function(&cpp, old), "mjbridge.hpp calls {old}");
        assert!(
            !names_function(&cs, &format!("Native.{old}")),
            "MjBridge.cs calls {old}"
        );
        assert!(
            !names_function(&py, &format!("_lib.{old}"))
                && !names_function(&py, &format!("\"{old}")),
            "mjbridge/__init__.py calls {old}"
        );
    }
}

#[test]
fn every_mutation_has_its_precondition_twin() {
    let h = header();
    let twins: BTreeSet<&str> = h
        .functions
        .iter()
        .filter(|f| !h.deprecated.contains_key(&f.name) && if_twin(&h, f).is_some())
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(
        twins,
        BTreeSet::from([
            "mjb_endpoint_replace_model",
            "mjb_endpoint_step",
            "mjb_input_write",
            "mjb_restore",
            "mjb_restore_point_apply",
            "mjb_rewind",
            "mjb_set_ctrl",
            "mjb_world_write",
            "mjb_write_step",
            "mjb_write_step_read",
        ])
    );
}

#[test]
fn cpp_binding_calls_every_exported_function() {
    let h = header();
    let binding = std::fs::read_to_string(root().join("bindings/cpp/mjbridge.hpp")).unwrap();
    let called = |f: &str| binding.contains(&format!("{f}(")) || binding.contains(&format!("{f},"));
    // A plain mutation is wrapped by its `_if` twin (the plain overload passes no precondition).
    let wrapped = |f: &Function| called(&f.name) || if_twin(&h, f).is_some_and(|g| called(&g.name));
    let missing: Vec<&str> = h
        .functions
        .iter()
        .filter(|f| {
            !wrapped(f)
                && !superseded_by_info(&h, f).is_some_and(|i| called(&i.name))
                && !h.deprecated.get(&f.name).is_some_and(|r| {
                    called(r)
                        || h.functions.iter().any(|g| {
                            &g.name == r
                                && (wrapped(g)
                                    || superseded_by_info(&h, g).is_some_and(|i| called(&i.name)))
                        })
                })
        })
        .map(|f| f.name.as_str())
        .collect();
    assert!(
        missing.is_empty(),
        "not wrapped by bindings/cpp/mjbridge.hpp: {missing:?}"
    );
}

#[test]
fn csharp_binding_matches_the_header_exports_enums_and_layouts() {
    let h = header();
    let Some(layout) = c_layout(&h) else { return };
    let (Some(mcs), Some(mono)) = (tool("MCS", "mcs"), tool("MONO", "mono")) else {
        return;
    };
    let exe = out_dir().join("abi_csharp.exe");
    let o = Command::new(mcs)
        .arg(format!("-out:{}", exe.display()))
        .args(["-warn:4", "-warnaserror+"])
        .arg(root().join("bindings/csharp/MjBridge.cs"))
        .arg(root().join("bindings/csharp/tests/Abi.cs"))
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "mcs: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let dump = run(&mono, &[exe.to_str().unwrap()], &[]);
    let want = expected_facts(&h, layout, pascal, pascal, pascal);
    check_binding("C#", &dump, &want, &h, &|t, ret| cs_kinds(t, ret, &h));
}

#[test]
fn python_binding_matches_the_header_exports_enums_and_layouts() {
    let h = header();
    let Some(layout) = c_layout(&h) else { return };
    let Some(python) = tool("PYTHON", "python3") else {
        return;
    };
    let dump = run(
        Path::new(&python),
        &[
            root()
                .join("bindings/python/tests/abi_dump.py")
                .to_str()
                .unwrap(),
            root().join("bindings/python").to_str().unwrap(),
        ],
        &[("PYTHONDONTWRITEBYTECODE", "1")],
    );
    let same = |s: &str| s.to_owned();
    let want = expected_facts(&h, layout, same, same, same);
    check_binding("Python", &dump, &want, &h, &|t, _| py_kinds(t, &h));
}
