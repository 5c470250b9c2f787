//! The bindings' declaration layers, generated from `include/mjbridge.h` (itself cbindgen's
//! output of the Rust sources), and their drift check:
//! - C#: the `// <generated>` region of `bindings/csharp/MjBridge.cs` (enums, `Constants`, the
//!   structs with explicit offsets, `LogCallback`, and one `[DllImport]` per export in the
//!   partial class `Native`); the idiomatic layer below the region uses them.
//! - Python: `bindings/python/mjbridge/_native_gen.py` (IntEnums, constants, ctypes structures,
//!   `LOG_FN`, `SIGNATURES`: restype and argtypes per export).
//!
//! `cargo test --test bindings_gen` fails when a committed file differs from a fresh
//! generation; `MJB_BLESS=1 cargo test --test bindings_gen` rewrites them.
//!
//! Why a generator of our own: the header is regular cbindgen output (one declaration form per
//! kind), so reading it takes a page here, with no libclang. csbindgen emits raw pointers and
//! `unsafe` signatures (`mjb_endpoint*`, `double*`), while the binding marshals handles as
//! SafeHandles (a close waits for calls in flight), arrays and `ref`/`out` structs without
//! `unsafe` (Unity assemblies compile without "allow unsafe code"); and it reads Rust sources
//! or bindgen output, not the header. ctypeslib2's clang2py needs libclang and emits its own
//! structure of wrappers and no docs. The C types the tables below do not know fail here,
//! naming the function: extend the tables (and tests/bindings.rs's kind tables) together.

#[path = "common/toolchain.rs"]
mod toolchain;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use toolchain::root;

const HEADER: &str = "include/mjbridge.h";
const CS_FILE: &str = "bindings/csharp/MjBridge.cs";
const PY_FILE: &str = "bindings/python/mjbridge/_native_gen.py";
/// The header's `#define`s the bindings do not bind, each with why (every other one is bound;
/// the parser refuses one it does not know).
const NOT_BOUND: &[(&str, &str)] = &[
    ("MJBRIDGE_H", "the include guard"),
    (
        "MJB_API",
        "the export marker (dllimport for MSVC consumers)",
    ),
    ("MJB_DEPRECATED(msg)", "the deprecation marker of exports"),
    (
        "MAX_WINDOW_TICKS",
        "deprecated alias of MJB_MAX_WINDOW_TICKS, which is bound",
    ),
    (
        "MAX_WINDOW_KEYFRAMES",
        "deprecated alias of MJB_MAX_WINDOW_KEYFRAMES, which is bound",
    ),
];

const CS_BEGIN: &str = "    // <generated> by tests/bindings_gen.rs from include/mjbridge.h; do not edit: regenerate with `MJB_BLESS=1 cargo test --test bindings_gen`\n";
const CS_END: &str = "    // </generated>\n";

// ---------------------------------------------------------------------------------------------
// The header, with its doc comments

#[derive(Debug, Default)]
struct Define {
    name: String,
    value: String,
    doc: Vec<String>,
}

#[derive(Debug)]
struct Enum {
    name: String,
    doc: Vec<String>,
    members: Vec<(String, i64, Vec<String>)>,
}

#[derive(Debug)]
struct Field {
    ty: String,
    name: String,
    doc: Vec<String>,
}

#[derive(Debug)]
struct Struct {
    name: String,
    doc: Vec<String>,
    fields: Vec<Field>,
}

#[derive(Debug)]
struct Param {
    /// As written, spaces normalised: `const struct mjb_expect *`, `size_t`.
    ty: String,
    name: String,
}

#[derive(Debug)]
struct Function {
    name: String,
    ret: String,
    params: Vec<Param>,
    doc: Vec<String>,
    deprecated: Option<String>,
}

#[derive(Debug, Default)]
struct Header {
    defines: Vec<Define>,
    enums: Vec<Enum>,
    structs: Vec<Struct>,
    /// `mjb_log_fn` -> (doc, parameters)
    callbacks: Vec<(String, Vec<String>, Vec<Param>)>,
    functions: Vec<Function>,
}

/// `/** ... */` text: the lines between, their ` * ` stripped.
fn doc_lines(block: &str) -> Vec<String> {
    block
        .trim()
        .trim_start_matches("/**")
        .trim_end_matches("*/")
        .lines()
        .map(|l| {
            let l = l.trim();
            l.strip_prefix("* ")
                .or(l.strip_prefix('*'))
                .unwrap_or(l)
                .to_owned()
        })
        .skip_while(|l| l.is_empty())
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .skip_while(|l| l.is_empty())
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect()
}

/// The first paragraph, as one line.
fn summary(doc: &[String]) -> String {
    doc.iter()
        .take_while(|l| !l.is_empty())
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(" ")
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `const struct mjb_expect *expect` -> (`const struct mjb_expect *`, `expect`).
fn split_decl(d: &str) -> Param {
    let d = squash(d);
    let at = d
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    Param {
        ty: squash(&d[..at].replace('*', " * ")).replace("* *", "**"),
        name: d[at..].to_owned(),
    }
}

fn parse(text: &str) -> Header {
    let mut h = Header::default();
    let lines: Vec<&str> = text.lines().collect();
    let mut doc: Vec<String> = Vec::new();
    let mut first_doc = true;
    let mut in_extern = false;
    let mut stmt = String::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim();
        i += 1;
        if line.starts_with("/**") {
            let mut block = line.to_owned();
            while !block.contains("*/") {
                block.push('\n');
                block.push_str(lines[i]);
                i += 1;
            }
            if first_doc {
                first_doc = false; // the file's own comment
            } else {
                doc = doc_lines(&block);
            }
            continue;
        }
        if line.starts_with("/*") {
            while !lines[i - 1].contains("*/") {
                i += 1;
            }
            continue;
        }
        if line == "extern \"C\" {" {
            in_extern = true;
            continue;
        }
        if let Some(d) = line.strip_prefix("#define ") {
            let mut parts = d.splitn(2, char::is_whitespace);
            let full = parts.next().unwrap();
            match (
                full.strip_prefix("MJB_"),
                NOT_BOUND.iter().find(|(n, _)| *n == full),
            ) {
                (_, Some(_)) => {}
                (Some(name), None) => h.defines.push(Define {
                    name: name.to_owned(),
                    value: parts.next().unwrap_or("").trim().to_owned(),
                    doc: std::mem::take(&mut doc),
                }),
                (None, None) => panic!(
                    "#define {full} is bound by no binding: bind it (an MJB_ constant is bound as \
                     it is found) or name it in NOT_BOUND with why"
                ),
            }
            doc.clear();
            continue;
        }
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        if in_extern {
            if line == "}" {
                continue;
            }
            stmt.push(' ');
            stmt.push_str(line);
            if !line.ends_with(';') {
                continue;
            }
            let s = squash(&std::mem::take(&mut stmt));
            let s = s.strip_prefix("MJB_API ").unwrap_or(&s).to_owned();
            let (s, deprecated) = match s.strip_prefix("MJB_DEPRECATED(\"") {
                Some(rest) => {
                    let end = rest.find("\")").unwrap();
                    (
                        rest[end + 2..].trim().to_owned(),
                        Some(rest[..end].to_owned()),
                    )
                }
                None => (s, None),
            };
            let open = s.find('(').unwrap();
            let head = split_decl(&s[..open]);
            let inner = &s[open + 1..s.rfind(')').unwrap()];
            let params = if inner.trim() == "void" {
                Vec::new()
            } else {
                inner.split(',').map(split_decl).collect()
            };
            let doc = std::mem::take(&mut doc);
            if !head.name.starts_with("mjb_test_") {
                h.functions.push(Function {
                    name: head.name,
                    ret: head.ty,
                    params,
                    doc,
                    deprecated,
                });
            }
            continue;
        }
        if let Some(name) = line.strip_prefix("enum ") {
            let mut e = Enum {
                name: name.trim().to_owned(),
                doc: std::mem::take(&mut doc),
                members: Vec::new(),
            };
            let mut mdoc = Vec::new();
            loop {
                let l = lines[i].trim();
                i += 1;
                if l == "};" {
                    break;
                }
                if l.starts_with("/**") {
                    let mut block = l.to_owned();
                    while !block.contains("*/") {
                        block.push('\n');
                        block.push_str(lines[i]);
                        i += 1;
                    }
                    mdoc = doc_lines(&block);
                } else if let Some((n, v)) = l
                    .strip_prefix("MJB_")
                    .and_then(|m| m.trim_end_matches(',').split_once('='))
                {
                    let n = format!("MJB_{}", n.trim());
                    let v = v
                        .trim()
                        .parse()
                        .unwrap_or_else(|_| panic!("integer enum value: {l}"));
                    e.members
                        .push((n.trim().to_owned(), v, std::mem::take(&mut mdoc)));
                }
            }
            h.enums.push(e);
            continue;
        }
        if let Some(rest) = line.strip_prefix("typedef struct ") {
            if let Some(name) = rest.strip_suffix(" {") {
                let mut s = Struct {
                    name: name.to_owned(),
                    doc: std::mem::take(&mut doc),
                    fields: Vec::new(),
                };
                let mut fdoc = Vec::new();
                loop {
                    let l = lines[i].trim();
                    i += 1;
                    if l.starts_with('}') {
                        break;
                    }
                    if l.starts_with("/**") {
                        let mut block = l.to_owned();
                        while !block.contains("*/") {
                            block.push('\n');
                            block.push_str(lines[i]);
                            i += 1;
                        }
                        fdoc = doc_lines(&block);
                    } else if let Some(d) = l.strip_suffix(';') {
                        assert!(!d.contains('['), "array fields are not mapped: {l}");
                        let p = split_decl(d);
                        s.fields.push(Field {
                            ty: p.ty,
                            name: p.name,
                            doc: std::mem::take(&mut fdoc),
                        });
                    }
                }
                h.structs.push(s);
            } else {
                doc.clear(); // an opaque handle: no declaration in the bindings
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix("typedef void (*") {
            let name = &rest[..rest.find(')').unwrap()];
            let inner = &rest[rest.find(")(").unwrap() + 2..rest.rfind(')').unwrap()];
            h.callbacks.push((
                name.to_owned(),
                std::mem::take(&mut doc),
                inner.split(',').map(split_decl).collect(),
            ));
            continue;
        }
        // `typedef int32_t mjb_outcome;` and the like: nothing to declare.
        if !line.starts_with("typedef ") && !line.starts_with("struct ") && line != "};" {
            doc.clear();
        }
    }
    h
}

// ---------------------------------------------------------------------------------------------
// Names

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

/// `timeout_ms` -> `timeoutMs`; a C# keyword (`out`) escaped as `@out`.
fn camel(s: &str) -> String {
    let p = pascal(s);
    let mut c = p.chars();
    let name = c
        .next()
        .map(|f| f.to_ascii_lowercase().to_string() + c.as_str())
        .unwrap_or_default();
    match name.as_str() {
        "out" | "ref" | "in" | "string" | "object" | "params" | "base" | "fixed" | "lock" => {
            format!("@{name}")
        }
        _ => name,
    }
}

/// `mjb_safety_state` -> `SafetyState`.
fn type_name(c: &str) -> String {
    pascal(c.strip_prefix("mjb_").unwrap_or(c))
}

/// The common prefix of an enum's members up to an underscore (`MJB_REASON_`).
fn member_prefix(e: &Enum) -> String {
    let first = &e.members[0].0;
    let mut len = first.len();
    for (m, _, _) in &e.members {
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

/// The callback typedefs' binding names.
fn callback_name(c: &str, cs: bool) -> String {
    match (c, cs) {
        ("mjb_log_fn", true) => "LogCallback".into(),
        ("mjb_log_fn", false) => "LOG_FN".into(),
        _ => panic!("no binding name for the callback type {c}: add it to callback_name"),
    }
}

/// `int32_t` struct fields that hold one of the header's enums (C passes enums as int32_t).
const ENUM_FIELDS: &[(&str, &str, &str)] = &[
    ("mjb_report", "outcome", "mjb_outcome"),
    ("mjb_report", "reason", "mjb_reason"),
    ("mjb_safety_state", "fence_reason", "mjb_reason"),
    ("mjb_frame_info", "cause", "mjb_frame_cause"),
    ("mjb_frame_request", "field", "mjb_field"),
    ("mjb_input", "field", "mjb_field"),
];

/// Size and alignment of a field type (the 64-bit targets the bindings ship for; the layout
/// test in tests/bindings.rs compares every offset with the C compiler's).
fn c_size(ty: &str) -> usize {
    if ty.ends_with('*') {
        return 8;
    }
    match ty {
        "bool" => 1,
        "int32_t" | "uint32_t" => 4,
        "int64_t" | "uint64_t" | "double" | "size_t" => 8,
        _ => panic!("no size for the C field type `{ty}`: extend c_size"),
    }
}

// ---------------------------------------------------------------------------------------------
// C#

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A `/// <summary>` of the first paragraph, wrapped at 100 columns.
fn cs_doc(out: &mut String, indent: &str, doc: &[String]) {
    let s = summary(doc);
    if s.is_empty() {
        return;
    }
    let one = format!("{indent}/// <summary>{}</summary>", xml(&s));
    if one.len() <= 100 {
        writeln!(out, "{one}").unwrap();
        return;
    }
    writeln!(out, "{indent}/// <summary>").unwrap();
    let mut line = String::new();
    for w in xml(&s).split_whitespace() {
        if !line.is_empty() && indent.len() + 4 + line.len() + 1 + w.len() > 100 {
            writeln!(out, "{indent}/// {line}").unwrap();
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(w);
    }
    writeln!(out, "{indent}/// {line}\n{indent}/// </summary>").unwrap();
}

fn cs_field_type(s: &str, f: &Field) -> String {
    if let Some((_, _, e)) = ENUM_FIELDS
        .iter()
        .find(|(st, name, _)| *st == s && *name == f.name)
    {
        return type_name(e);
    }
    match f.ty.as_str() {
        "bool" => "bool".into(),
        "int32_t" => "int".into(),
        "uint32_t" => "uint".into(),
        "int64_t" => "long".into(),
        "uint64_t" => "ulong".into(),
        "double" => "double".into(),
        "size_t" => "UIntPtr".into(),
        "double *" | "const double *" => "IntPtr".into(),
        t => panic!("no C# mapping for the field type `{t}` of {s}.{}", f.name),
    }
}

/// The C# parameter type of a C parameter.
fn cs_param(f: &str, p: &Param, h: &Header) -> String {
    let t = p.ty.as_str();
    let handle = |c: &str| match c {
        "mjb_endpoint" => Some("EndpointHandle"),
        "mjb_restore_point" => Some("RestorePointHandle"),
        "mjb_frame_reader" => Some("FrameReaderHandle"),
        "mjb_string" => Some("IntPtr"),
        _ => None,
    };
    let is_const = t.starts_with("const ");
    if let Some(base) = t.trim_start_matches("const ").strip_prefix("struct ") {
        let (base, stars) = (base.trim_end_matches([' ', '*']), base.matches('*').count());
        if let Some(cs) = handle(base) {
            // A free takes the raw pointer: SafeHandle.ReleaseHandle calls it.
            if f.ends_with("_free") && stars == 1 {
                return "IntPtr".into();
            }
            return match stars {
                1 => cs.into(),
                2 => format!("out {cs}"),
                _ => panic!("{f}: `{t}`"),
            };
        }
        if base == "mjModel_" || base == "mjData_" {
            return "IntPtr".into();
        }
        if base == "mjb_frame_request" && stars == 1 && !is_const {
            return "[In, Out] FrameRequest[]".into();
        }
        if stars == 1 && !is_const && h.structs.iter().any(|s| s.name == base) {
            return format!("out {}", type_name(base));
        }
    }
    if let Some(base) = t.strip_prefix("const struct ") {
        let base = base.trim_end_matches([' ', '*']);
        match base {
            "mjb_expect" => return "[In] ref Expect".into(),
            "mjb_input" => return "[In] Input[]".into(),
            _ => {}
        }
    }
    if h.callbacks.iter().any(|c| c.0 == t) {
        return callback_name(t, true);
    }
    match t {
        "const char *" => "byte[]".into(),
        "char *" => "[Out] byte[]".into(),
        "const double *" => "double[]".into(),
        "double *" => "[Out] double[]".into(),
        "void *" => "IntPtr".into(),
        "size_t" => "UIntPtr".into(),
        "size_t *" => "out UIntPtr".into(),
        "int32_t" => "int".into(),
        "int32_t *" => "out int".into(),
        "uint32_t" => "uint".into(),
        "uint64_t" => "ulong".into(),
        _ => panic!("{f}: no C# mapping for the parameter type `{t}`: extend cs_param (and tests/bindings.rs's cs_kinds)"),
    }
}

fn cs_return(f: &str, t: &str) -> String {
    match t {
        "mjb_outcome" => "Outcome".into(),
        // Library-owned strings stay IntPtr: a `string` return would make the marshaller
        // free memory it does not own.
        "const char *" => "IntPtr".into(),
        "size_t" => "UIntPtr".into(),
        _ => panic!("{f}: no C# mapping for the return type `{t}`"),
    }
}

/// The constant's C# type: a string, a `(uint32_t)` cast, a flag of a `uint32_t` struct member
/// (its doc starts with `` `mjb_expect.flags` ``), else int.
fn cs_constant(d: &Define, h: &Header) -> (String, String) {
    if d.value.starts_with('"') {
        return ("string".into(), d.value.clone());
    }
    if d.value == "(uint32_t)UINT32_MAX" {
        return ("uint".into(), u32::MAX.to_string());
    }
    let member_ty = d.doc.first().and_then(|l| {
        let inner = l.strip_prefix('`')?.split('`').next()?;
        let (s, f) = inner.split_once('.')?;
        let s = h.structs.iter().find(|x| x.name == s)?;
        s.fields.iter().find(|x| x.name == f).map(|x| x.ty.clone())
    });
    let v: i64 = d.value.parse().unwrap_or_else(|_| {
        panic!(
            "MJB_{}: no mapping for the value `{}`: extend cs_constant",
            d.name, d.value
        )
    });
    match member_ty.as_deref() {
        Some("uint32_t") => ("uint".into(), v.to_string()),
        _ => ("int".into(), v.to_string()),
    }
}

fn csharp(h: &Header) -> String {
    let mut o = String::new();
    for e in &h.enums {
        let prefix = member_prefix(e);
        cs_doc(&mut o, "    ", &e.doc);
        writeln!(o, "    public enum {} : int\n    {{", type_name(&e.name)).unwrap();
        for (m, v, doc) in &e.members {
            cs_doc(&mut o, "        ", doc);
            writeln!(
                o,
                "        {} = {v},",
                pascal(m.strip_prefix(&prefix).unwrap())
            )
            .unwrap();
        }
        o.push_str("    }\n\n");
    }
    o.push_str("    /// <summary>The header's #define constants.</summary>\n");
    o.push_str("    public static class Constants\n    {\n");
    for d in &h.defines {
        cs_doc(&mut o, "        ", &d.doc);
        let (ty, v) = cs_constant(d, h);
        writeln!(o, "        public const {ty} {} = {v};", pascal(&d.name)).unwrap();
    }
    o.push_str("    }\n\n");
    for s in &h.structs {
        let mut off: usize = 0;
        let mut body = String::new();
        let mut align = 1;
        for f in &s.fields {
            let size = c_size(&f.ty);
            align = align.max(size);
            off = off.div_ceil(size) * size;
            cs_doc(&mut body, "        ", &f.doc);
            let ty = cs_field_type(&s.name, f);
            let marshal = if ty == "bool" {
                "[MarshalAs(UnmanagedType.U1)] "
            } else {
                ""
            };
            writeln!(
                body,
                "        [FieldOffset({off})] {marshal}public {ty} {};",
                pascal(&f.name)
            )
            .unwrap();
            off += size;
        }
        let size = off.div_ceil(align) * align;
        cs_doc(&mut o, "    ", &s.doc);
        writeln!(
            o,
            "    [StructLayout(LayoutKind.Explicit, Size = {size})]\n    public partial struct {}\n    {{\n{body}    }}\n",
            type_name(&s.name)
        )
        .unwrap();
    }
    for (c, doc, params) in &h.callbacks {
        cs_doc(&mut o, "    ", doc);
        let ps: Vec<String> = params
            .iter()
            .map(|p| {
                let t = match p.ty.as_str() {
                    "void *" | "const char *" => "IntPtr",
                    "int32_t" => "int",
                    t => panic!("{c}: no C# mapping for the callback parameter `{t}`"),
                };
                format!("{t} {}", camel(&p.name))
            })
            .collect();
        writeln!(
            o,
            "    [UnmanagedFunctionPointer(CallingConvention.Cdecl)]\n    public delegate void {}({});\n",
            callback_name(c, true),
            ps.join(", ")
        )
        .unwrap();
    }
    o.push_str("    /// <summary>The C functions, one declaration per export.</summary>\n");
    o.push_str("    public static partial class Native\n    {\n");
    for (k, f) in h.functions.iter().enumerate() {
        if k > 0 {
            o.push('\n');
        }
        let mut doc = f.doc.clone();
        if let Some(d) = &f.deprecated {
            doc.insert(0, format!("Deprecated: {d}."));
            doc.insert(1, String::new());
        }
        cs_doc(&mut o, "        ", &doc);
        let ps: Vec<String> = f
            .params
            .iter()
            .map(|p| format!("{} {}", cs_param(&f.name, p, h), camel(&p.name)))
            .collect();
        writeln!(
            o,
            "        [DllImport(Library, CallingConvention = CallingConvention.Cdecl, ExactSpelling = true)]\n        public static extern {} {}({});",
            cs_return(&f.name, &f.ret),
            f.name,
            ps.join(", ")
        )
        .unwrap();
    }
    o.push_str("    }\n");
    o
}

// ---------------------------------------------------------------------------------------------
// Python

fn py_str(s: &str) -> String {
    s.replace('\\', "\\\\").replace("\"\"\"", "\\\"\\\"\\\"")
}

/// A comment block, wrapped at 99 columns.
fn py_comment(out: &mut String, indent: &str, text: &str) {
    let mut line = String::new();
    for w in text.split_whitespace() {
        if !line.is_empty() && indent.len() + 2 + line.len() + 1 + w.len() > 99 {
            writeln!(out, "{indent}# {line}").unwrap();
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(w);
    }
    if !line.is_empty() {
        writeln!(out, "{indent}# {line}").unwrap();
    }
}

/// A docstring, wrapped at 99 columns.
fn py_docstring(out: &mut String, indent: &str, text: &str) {
    let text = py_str(text);
    let mut lines = vec![String::new()];
    for w in text.split_whitespace() {
        let first = lines.len() == 1;
        let cur = lines.last_mut().unwrap();
        let extra = if first { 3 } else { 0 };
        if !cur.is_empty() && indent.len() + extra + cur.len() + 1 + w.len() > 95 {
            lines.push(String::new());
        }
        let cur = lines.last_mut().unwrap();
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(w);
    }
    if lines.len() == 1 {
        writeln!(out, "{indent}\"\"\"{}\"\"\"", lines[0]).unwrap();
    } else {
        writeln!(out, "{indent}\"\"\"{}", lines[0]).unwrap();
        for l in &lines[1..] {
            writeln!(out, "{indent}{l}").unwrap();
        }
        writeln!(out, "{indent}\"\"\"").unwrap();
    }
}

fn py_field_type(s: &str, f: &Field) -> String {
    match f.ty.as_str() {
        "bool" => "c_bool".into(),
        "int32_t" => "c_int32".into(),
        "uint32_t" => "c_uint32".into(),
        "int64_t" => "c_int64".into(),
        "uint64_t" => "c_uint64".into(),
        "double" => "c_double".into(),
        "size_t" => "c_size_t".into(),
        "double *" | "const double *" => "POINTER(c_double)".into(),
        t => panic!(
            "no ctypes mapping for the field type `{t}` of {s}.{}",
            f.name
        ),
    }
}

fn py_param(f: &str, t: &str, h: &Header) -> String {
    if let Some(base) = t
        .strip_prefix("const struct ")
        .or_else(|| t.strip_prefix("struct "))
    {
        let (base, stars) = (base.trim_end_matches([' ', '*']), base.matches('*').count());
        let inner = match base {
            "mjb_endpoint" => "ENDPOINT".to_owned(),
            "mjb_restore_point" => "RESTORE_POINT".to_owned(),
            "mjb_frame_reader" => "FRAME_READER".to_owned(),
            "mjb_string" => "STRING".to_owned(),
            "mjModel_" | "mjData_" if stars == 1 => return "c_void_p".into(),
            b if stars == 1 && h.structs.iter().any(|s| s.name == b) => {
                return format!("POINTER({})", type_name(b))
            }
            _ => panic!("{f}: no ctypes mapping for `{t}`"),
        };
        return match stars {
            1 => inner,
            2 => format!("POINTER({inner})"),
            _ => panic!("{f}: `{t}`"),
        };
    }
    if h.callbacks.iter().any(|c| c.0 == t) {
        return callback_name(t, false);
    }
    match t {
        "const char *" | "char *" => "c_char_p".into(),
        "const double *" | "double *" => "POINTER(c_double)".into(),
        "void *" => "c_void_p".into(),
        "size_t" => "c_size_t".into(),
        "size_t *" => "POINTER(c_size_t)".into(),
        "int32_t" => "c_int32".into(),
        "int32_t *" => "POINTER(c_int32)".into(),
        "uint32_t" => "c_uint32".into(),
        "uint64_t" => "c_uint64".into(),
        _ => panic!("{f}: no ctypes mapping for the parameter type `{t}`: extend py_param (and tests/bindings.rs's py_kinds)"),
    }
}

fn py_return(f: &str, t: &str) -> String {
    match (f, t) {
        ("mjb_string_data", "const char *") => "c_void_p".into(), // read with its length
        (_, "mjb_outcome") => "OUTCOME".into(),
        (_, "const char *") => "c_char_p".into(),
        (_, "size_t") => "c_size_t".into(),
        _ => panic!("{f}: no ctypes mapping for the return type `{t}`"),
    }
}

fn python(h: &Header) -> String {
    let mut o = String::new();
    o.push_str("# Generated by tests/bindings_gen.rs from include/mjbridge.h; do not edit.\n");
    o.push_str("# Regenerate: MJB_BLESS=1 cargo test --test bindings_gen\n");
    o.push_str(concat!(
        "\"\"\"The C ABI's declarations for ctypes: the header's constants, enums, structs and one\n",
        "(restype, argtypes) entry per export in SIGNATURES. Handles and library strings are\n",
        "pointer-sized (``c_void_p``), never the default ``int``.\"\"\"\n\n",
        "from __future__ import annotations\n\n",
        "import ctypes\n",
        "from ctypes import (\n",
    ));
    for c in [
        "CFUNCTYPE",
        "POINTER",
        "c_bool",
        "c_char_p",
        "c_double",
        "c_int32",
        "c_int64",
        "c_size_t",
        "c_uint32",
        "c_uint64",
        "c_void_p",
    ] {
        writeln!(o, "    {c},").unwrap();
    }
    o.push_str(")\nfrom enum import IntEnum\nfrom typing import Any, Dict, List, Tuple\n\n");
    for d in &h.defines {
        py_comment(&mut o, "", &summary(&d.doc));
        let v = if d.value == "(uint32_t)UINT32_MAX" {
            u32::MAX.to_string()
        } else {
            d.value.clone()
        };
        writeln!(o, "{} = {v}", d.name).unwrap();
    }
    for e in &h.enums {
        let prefix = member_prefix(e);
        writeln!(o, "\n\nclass {}(IntEnum):", type_name(&e.name)).unwrap();
        py_docstring(&mut o, "    ", &format!("{}: {}", e.name, summary(&e.doc)));
        o.push('\n');
        for (m, v, doc) in &e.members {
            py_comment(
                &mut o,
                "    ",
                &format!(": {}", summary(doc)).replacen(": ", ":", 1),
            );
            writeln!(o, "    {} = {v}", m.strip_prefix(&prefix).unwrap()).unwrap();
        }
    }
    o.push_str(concat!(
        "\n\nclass _Struct(ctypes.Structure):\n",
        "    def __repr__(self) -> str:\n",
        "        return \"%s(%s)\" % (\n",
        "            type(self).__name__,\n",
        "            \", \".join(\"%s=%r\" % (f[0], getattr(self, f[0])) for f in self._fields_),\n",
        "        )\n",
    ));
    for s in &h.structs {
        writeln!(o, "\n\nclass {}(_Struct):", type_name(&s.name)).unwrap();
        py_docstring(&mut o, "    ", &format!("{}: {}", s.name, summary(&s.doc)));
        o.push_str("\n    _fields_ = [\n");
        for f in &s.fields {
            py_comment(&mut o, "        ", &summary(&f.doc));
            writeln!(
                o,
                "        (\"{}\", {}),",
                f.name,
                py_field_type(&s.name, f)
            )
            .unwrap();
        }
        o.push_str("    ]\n");
    }
    o.push('\n');
    for (c, doc, params) in &h.callbacks {
        py_comment(&mut o, "", &summary(doc));
        let ps: Vec<String> = params
            .iter()
            .map(|p| match p.ty.as_str() {
                "void *" => "c_void_p".to_owned(),
                "int32_t" => "c_int32".to_owned(),
                "const char *" => "c_char_p".to_owned(),
                t => panic!("{c}: no ctypes mapping for the callback parameter `{t}`"),
            })
            .collect();
        writeln!(
            o,
            "{} = CFUNCTYPE(None, {})",
            callback_name(c, false),
            ps.join(", ")
        )
        .unwrap();
    }
    o.push_str(concat!(
        "\n# Opaque pointers: an mjb_endpoint* (a number, not an address), an mjb_restore_point*\n",
        "# (likewise), an mjb_string*; MuJoCo's mjModel*/mjData* are c_void_p.\n",
        "ENDPOINT = c_void_p\nRESTORE_POINT = c_void_p\nFRAME_READER = c_void_p\nSTRING = c_void_p\nOUTCOME = c_int32\n\n",
        "SIGNATURES: Dict[str, Tuple[Any, List[Any]]] = {\n",
    ));
    for f in &h.functions {
        let mut doc = summary(&f.doc);
        if let Some(d) = &f.deprecated {
            doc = format!("Deprecated: {d}. {doc}");
        }
        py_comment(&mut o, "    ", &doc);
        let args: Vec<String> = f
            .params
            .iter()
            .map(|p| py_param(&f.name, &p.ty, h))
            .collect();
        let ret = py_return(&f.name, &f.ret);
        let one = format!("    \"{}\": ({ret}, [{}]),", f.name, args.join(", "));
        if one.len() <= 99 {
            writeln!(o, "{one}").unwrap();
        } else {
            writeln!(o, "    \"{}\": (\n        {ret},\n        [", f.name).unwrap();
            for a in &args {
                writeln!(o, "            {a},").unwrap();
            }
            o.push_str("        ],\n    ),\n");
        }
    }
    o.push_str("}\n");
    o
}

// ---------------------------------------------------------------------------------------------
// The files

fn header() -> Header {
    let h = parse(&std::fs::read_to_string(root().join(HEADER)).unwrap());
    assert!(h.functions.len() >= 50, "{} functions", h.functions.len());
    assert!(h.enums.len() >= 6 && h.structs.len() >= 9 && h.defines.len() >= 10);
    h
}

/// MjBridge.cs with its generated region replaced by `generated`.
fn splice(cs: &str, generated: &str) -> String {
    let begin = cs
        .find(CS_BEGIN)
        .expect("MjBridge.cs has the <generated> line")
        + CS_BEGIN.len();
    let end = cs
        .find(CS_END)
        .expect("MjBridge.cs has the </generated> line");
    assert!(begin <= end);
    format!("{}{generated}{}", &cs[..begin], &cs[end..])
}

/// None when `committed` is `fresh`, else the first line (1-based) where they differ.
fn first_difference(committed: &str, fresh: &str) -> Option<usize> {
    if committed == fresh {
        return None;
    }
    let line = committed
        .lines()
        .zip(fresh.lines())
        .position(|(a, b)| a != b)
        .unwrap_or(committed.lines().count().min(fresh.lines().count()));
    Some(line + 1)
}

fn check(path: &str, fresh: &str) {
    let p = root().join(path);
    let committed = std::fs::read_to_string(&p).unwrap_or_default();
    let Some(line) = first_difference(&committed, fresh) else {
        return;
    };
    if std::env::var("MJB_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(&p, fresh).unwrap();
        eprintln!("rewrote {path}");
        return;
    }
    panic!(
        "{path} differs from a fresh generation from {HEADER} (first at line {line}): run `MJB_BLESS=1 cargo test --test bindings_gen` and commit the result"
    );
}

#[test]
fn csharp_declarations_are_generated_from_the_header() {
    let cs = std::fs::read_to_string(root().join(CS_FILE)).unwrap();
    check(CS_FILE, &splice(&cs, &csharp(&header())));
}

#[test]
fn python_declarations_are_generated_from_the_header() {
    check(PY_FILE, &python(&header()));
}

/// The parser reads every export, enum member, struct field and #define of the header, and
/// their docs: the generated layers cover what tests/bindings.rs compares.
#[test]
fn a_define_no_binding_binds_is_named_or_refused() {
    let h = parse(
        "/** The limit. */\n#define MJB_LIMIT 3\n#define MAX_WINDOW_TICKS MJB_MAX_WINDOW_TICKS\n",
    );
    assert_eq!(
        h.defines.len(),
        1,
        "the MJB_ constant is bound, the named alias is not"
    );
    assert_eq!(h.defines[0].name, "LIMIT");
    let stray = std::panic::catch_unwind(|| parse("#define STRAY_LIMIT 3\n"));
    let why = stray.expect_err("a #define neither bound nor named is refused");
    let msg = why.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        msg.contains("STRAY_LIMIT") && msg.contains("NOT_BOUND"),
        "{msg}"
    );
}

#[test]
fn the_parser_reads_the_whole_header() {
    let text = std::fs::read_to_string(root().join(HEADER)).unwrap();
    let h = header();
    let exports = text
        .lines()
        .filter(|l| {
            let l = l.trim_start_matches("MJB_API ");
            l.starts_with("mjb_outcome mjb_")
                || l.starts_with("const char *mjb_")
                || l.starts_with("size_t mjb_")
        })
        .filter(|l| !l.contains("mjb_test_"))
        .count();
    assert_eq!(h.functions.len(), exports);
    let open = h
        .functions
        .iter()
        .find(|f| f.name == "mjb_write_step_read_if")
        .unwrap();
    assert_eq!(open.params[1].ty, "const struct mjb_expect *");
    assert_eq!(open.params[1].name, "expect");
    assert!(summary(&open.doc).len() > 20);
    let step = h.functions.iter().find(|f| f.name == "mjb_step").unwrap();
    assert!(step
        .deprecated
        .as_deref()
        .unwrap()
        .contains("mjb_endpoint_step"));
    let members: usize = h.enums.iter().map(|e| e.members.len()).sum();
    let written = text
        .lines()
        .filter(|l| l.starts_with("  MJB_") && l.contains(" = ") && l.ends_with(','))
        .count();
    assert_eq!(members, written);
    let reason = h.enums.iter().find(|e| e.name == "mjb_reason").unwrap();
    assert!(reason.members.iter().all(|(_, _, d)| !d.is_empty()));
    let report = h.structs.iter().find(|s| s.name == "mjb_report").unwrap();
    assert_eq!(report.fields[2].name, "tick_before");
    assert!(h.defines.iter().any(|d| d.name == "WAIT_FOREVER"));
    let mut by_name = BTreeMap::new();
    for s in &h.structs {
        assert!(by_name.insert(&s.name, s.fields.len()).is_none());
        assert!(!s.doc.is_empty(), "{} has no doc", s.name);
    }
}

/// What the drift check is for: a new field, value or export in the header reaches both
/// bindings with no edit (a synthetic header), and a stale file is told apart from a fresh one.
#[test]
fn a_new_field_value_and_export_reach_both_bindings_and_drift_is_seen() {
    let text = concat!(
        "/** file */\n",
        "#define MJB_VERSION \"9.9.9\"\n",
        "/**\n * `mjb_expect.flags`: check it.\n */\n#define MJB_EXPECT_NEW 8\n",
        "/**\n * Kinds.\n */\nenum mjb_kind\n {\n  /**\n   * One.\n   */\n  MJB_KIND_ONE = 0,\n  MJB_KIND_TWO_MORE = 1,\n};\n",
        "/**\n * Flags.\n */\ntypedef struct mjb_expect {\n  uint32_t flags;\n} mjb_expect;\n",
        "/**\n * A thing.\n */\ntypedef struct mjb_thing {\n  /**\n   * First.\n   */\n  bool on;\n  uint64_t count;\n  int32_t late_field;\n} mjb_thing;\n",
        "typedef struct mjb_endpoint mjb_endpoint;\n",
        "#ifdef __cplusplus\nextern \"C\" {\n#endif\n",
        "/**\n * Read a thing.\n *\n * More.\n */\n",
        "MJB_API\nmjb_outcome mjb_thing_read(struct mjb_endpoint *ep,\n                           struct mjb_thing *out);\n",
        "#ifdef __cplusplus\n}\n#endif\n",
    );
    let h = parse(text);
    let cs = csharp(&h);
    let py = python(&h);
    assert!(
        cs.contains("public const string Version = \"9.9.9\";"),
        "{cs}"
    );
    assert!(cs.contains("public const uint ExpectNew = 8;"), "{cs}");
    assert!(cs.contains("        TwoMore = 1,"), "{cs}");
    assert!(
        cs.contains("[StructLayout(LayoutKind.Explicit, Size = 24)]"),
        "{cs}"
    );
    assert!(cs.contains("[FieldOffset(0)] [MarshalAs(UnmanagedType.U1)] public bool On;"));
    assert!(
        cs.contains("[FieldOffset(16)] public int LateField;"),
        "{cs}"
    );
    assert!(cs.contains("/// <summary>Read a thing.</summary>"), "{cs}");
    assert!(
        cs.contains(
            "public static extern Outcome mjb_thing_read(EndpointHandle ep, out Thing @out);"
        ),
        "{cs}"
    );
    assert!(py.contains("    TWO_MORE = 1\n"), "{py}");
    assert!(py.contains("        (\"late_field\", c_int32),\n"), "{py}");
    assert!(
        py.contains("    \"mjb_thing_read\": (OUTCOME, [ENDPOINT, POINTER(Thing)]),"),
        "{py}"
    );
    assert!(py.contains("    # Read a thing.\n"), "{py}");
    assert_eq!(first_difference(&py, &py), None);
    let stale = py.replace("late_field", "old_field");
    let at = first_difference(&stale, &py).unwrap();
    assert!(py.lines().nth(at - 1).unwrap().contains("late_field"));
    assert!(first_difference(&py[..py.len() - 10], &py).is_some());
}
