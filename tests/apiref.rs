//! The C API reference (`scripts/apiref.sh`, Doxygen): it builds from `include/mjbridge.h`
//! with no warning, and everything a host can use from the header has a description in it.
//!
//! Doxygen's warnings alone do not prove the second part: it does not warn about an
//! undocumented enum value, and a declaration it does not parse (hidden by a preprocessor
//! condition it reads differently, or confused by a macro) is silently absent rather than
//! undocumented. So the test also reads the header as a host's C compiler does (`gcc -E`) and
//! checks each of its functions, enum values, `#define`s, structs, struct fields and typedefs
//! against Doxygen's XML; the negative tests show each kind of hole failing.

#[path = "common/toolchain.rs"]
mod toolchain;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use toolchain::{root, tool};

/// The repository files the reference is built from, relative to the root.
const INPUTS: [&str; 4] = [
    "include/mjbridge.h",
    "docs/api/Doxyfile",
    "docs/api/mainpage.md",
    "scripts/apiref.sh",
];

#[test]
fn api_reference_builds_without_warnings_and_documents_every_item() {
    let Some(tools) = tools() else { return };
    let out = tempfile::tempdir().unwrap();
    let o = build_reference(&root(), out.path());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success(),
        "scripts/apiref.sh failed: {:?}\n{stderr}",
        o.status
    );
    assert!(
        stderr.trim().is_empty(),
        "doxygen printed warnings:\n{stderr}"
    );
    assert!(out.path().join("html/index.html").is_file());

    let header = header_items(&tools.cc, &root());
    let reference = reference_items(&out.path().join("xml"));
    let mainpage = std::fs::read_to_string(root().join("docs/api/mainpage.md")).unwrap();
    let problems = coverage(&header, &reference, &mainpage);
    assert!(
        problems.is_empty(),
        "the API reference misses or leaves undescribed:\n  {}",
        problems.join("\n  ")
    );
    // The header parse is not vacuous: these are the header's own counts.
    assert!(header.functions.len() >= 58, "{:?}", header.functions);
    assert!(header.enums.len() >= 6 && header.structs.len() >= 9);
    println!(
        "reference checked: {} functions, {} enums with {} values, {} structs with {} fields, \
         {} typedefs, {} defines",
        header.functions.len(),
        header.enums.len(),
        header.enums.values().map(Vec::len).sum::<usize>(),
        header.structs.len(),
        header.structs.values().map(Vec::len).sum::<usize>(),
        header.typedefs.len(),
        header.defines.len(),
    );
}

/// Doxygen's own warnings fail the build: an export, a struct field and a constant whose
/// comments were removed (on a copy of the header) are each named, and the script exits
/// non-zero.
#[test]
fn an_undocumented_function_field_or_define_fails_the_build() {
    let Some(_) = tools() else { return };
    for (needle, name) in [
        ("MJB_API mjb_outcome mjb_stop(", "mjb_stop"),
        ("  uint64_t in_flight;", "in_flight"),
        ("#define MJB_EXPECT_FRAME 4", "MJB_EXPECT_FRAME"),
    ] {
        let tree = copy_inputs(|h| strip_doc_before(h, needle));
        let out = tree.path().join("out");
        let o = build_reference(tree.path(), &out);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(
            !o.status.success(),
            "the build passed with {name} undocumented\n{stderr}"
        );
        assert!(
            stderr.contains(name) && stderr.contains("is not documented"),
            "doxygen's warnings do not name {name}:\n{stderr}"
        );
    }
}

/// What Doxygen lets through, the coverage check catches: an enum value without a comment
/// (Doxygen builds the reference without a warning) and a declaration a C compiler sees but
/// Doxygen does not (here behind `__GNUC__`, which Doxygen's preprocessor does not define).
#[test]
fn an_undocumented_enum_value_or_a_declaration_doxygen_misses_fails_the_coverage_check() {
    let Some(tools) = tools() else { return };
    let tree = copy_inputs(|h| {
        let h = strip_doc_before(h, "  MJB_REASON_BUSY = 21,");
        let anchor = "#ifdef __cplusplus\n}  // extern \"C\"";
        assert!(h.contains(anchor));
        h.replacen(
            anchor,
            &format!(
                "#ifdef __GNUC__\n/** Documented, but only a GNU compiler declares it. */\n\
                 MJB_API mjb_outcome mjb_apiref_hidden(void);\n#endif\n\n{anchor}"
            ),
            1,
        )
    });
    let out = tree.path().join("out");
    let o = build_reference(tree.path(), &out);
    assert!(
        o.status.success(),
        "expected Doxygen itself to pass (that is why the coverage check exists): {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let header = header_items(&tools.cc, tree.path());
    let reference = reference_items(&out.join("xml"));
    let mainpage = std::fs::read_to_string(tree.path().join("docs/api/mainpage.md")).unwrap();
    let problems = coverage(&header, &reference, &mainpage);
    let expected = [
        "function mjb_apiref_hidden is declared in the header but absent from the reference",
        "enum value MJB_REASON_BUSY (enum mjb_reason) has no description",
        "function mjb_apiref_hidden is not listed on the main page (docs/api/mainpage.md)",
    ];
    assert_eq!(problems, expected, "the coverage check's findings");
}

/// A function declared with `MJB_DEPRECATED` (an attribute for the compilers that have one,
/// nothing for Doxygen) is still in the reference, and its comment must carry `@deprecated`,
/// which the reference lists on its "Deprecated" page. Shown on a copy of the header where
/// `mjb_dims` is deprecated, without and with the note.
#[test]
fn a_deprecated_function_is_documented_as_deprecated() {
    let Some(tools) = tools() else { return };
    const DECL: &str = "MJB_API mjb_outcome mjb_dims(";
    // The header's own MJB_DEPRECATED if it has one, else one defined as GCC and Clang would.
    const DEFINE: &str = "/** @def MJB_DEPRECATED(msg)\n * Marks a deprecated export. */\n\
        #if defined(__GNUC__)\n\
        #define MJB_DEPRECATED(msg) __attribute__((deprecated(msg)))\n\
        #else\n\
        #define MJB_DEPRECATED(msg)\n\
        #endif\n\n";
    let deprecate = |h: &str, note: &str| {
        assert!(h.contains(DECL), "{DECL:?} not in the header");
        let mut h = h.replacen(
            DECL,
            "MJB_API MJB_DEPRECATED(\"a test\") mjb_outcome mjb_dims(",
            1,
        );
        if !h.contains("#define MJB_DEPRECATED") {
            h = h.replacen(
                "#ifndef MJB_API\n",
                &format!("{DEFINE}#ifndef MJB_API\n"),
                1,
            );
        }
        let decl_at = h.find("mjb_outcome mjb_dims(").unwrap();
        let comment_end = h[..decl_at].rfind(" */").unwrap();
        format!("{}{note}{}", &h[..comment_end], &h[comment_end..])
    };
    let missing = "function mjb_dims is declared deprecated but its comment has no @deprecated \
                   (naming the replacement)";
    for (note, expected) in [
        ("", vec![missing]),
        (" *\n * @deprecated Use the replacement.\n", vec![]),
    ] {
        let tree = copy_inputs(|h| deprecate(h, note));
        let out = tree.path().join("out");
        let o = build_reference(tree.path(), &out);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{stderr}");
        let header = header_items(&tools.cc, tree.path());
        assert!(
            header.deprecated.contains("mjb_dims"),
            "{:?}",
            header.deprecated
        );
        let reference = reference_items(&out.join("xml"));
        let mainpage = std::fs::read_to_string(tree.path().join("docs/api/mainpage.md")).unwrap();
        let problems = coverage(&header, &reference, &mainpage);
        assert_eq!(problems, expected, "with the note {note:?}");
    }
}

struct Tools {
    cc: PathBuf,
}

/// Doxygen and a C preprocessor, or None after saying loudly that they are missing (a failure
/// under MJB_REQUIRE_ALL_TOOLCHAINS=1).
fn tools() -> Option<Tools> {
    tool("DOXYGEN", "doxygen")?;
    let cc = tool("CC", "gcc")?;
    Some(Tools { cc })
}

/// Run `scripts/apiref.sh OUT` of the tree at `tree`.
fn build_reference(tree: &Path, out: &Path) -> Output {
    Command::new("bash")
        .arg(tree.join("scripts/apiref.sh"))
        .arg(out)
        .output()
        .expect("run scripts/apiref.sh")
}

/// A temporary tree holding the reference's inputs, the header edited by `edit`.
fn copy_inputs(edit: impl Fn(&str) -> String) -> tempfile::TempDir {
    let tree = tempfile::tempdir().unwrap();
    for rel in INPUTS {
        let to = tree.path().join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        let text = std::fs::read_to_string(root().join(rel)).unwrap();
        let text = if rel == "include/mjbridge.h" {
            let edited = edit(&text);
            assert_ne!(edited, text, "the edit changed nothing");
            edited
        } else {
            text
        };
        std::fs::write(to, text).unwrap();
    }
    tree
}

/// `header` without the `/** ... */` comment right before the line holding `needle`.
fn strip_doc_before(header: &str, needle: &str) -> String {
    let at = header
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in the header"));
    let line_start = header[..at].rfind('\n').map_or(0, |i| i + 1);
    let open = header[..line_start]
        .rfind("/**")
        .expect("a doc comment before");
    let close = open + header[open..].find("*/").unwrap() + 2;
    assert!(
        header[close..line_start].trim().is_empty(),
        "the comment before {needle:?} is not right above it"
    );
    let open_line = header[..open].rfind('\n').map_or(0, |i| i + 1);
    format!("{}{}", &header[..open_line], &header[line_start..])
}

// ---------------------------------------------------------------------------------------------
// The header as a C compiler sees it.

/// What a host's C compiler declares from the header.
#[derive(Debug, Default)]
struct HeaderItems {
    functions: BTreeSet<String>,
    /// Functions whose declaration carries a deprecation attribute (`MJB_DEPRECATED`).
    deprecated: BTreeSet<String>,
    /// Enum name -> its values.
    enums: BTreeMap<String, Vec<String>>,
    /// Struct name -> its fields (structs with a body only; opaque ones are typedefs).
    structs: BTreeMap<String, Vec<String>>,
    typedefs: BTreeSet<String>,
    defines: BTreeSet<String>,
}

/// Preprocess `tree`'s header as C11 with the defines and declarations kept (`gcc -E -dD`) and
/// read back the lines that come from the header itself (not from the system headers it
/// includes), then parse its declarations. Test-only parts behind `MJB_FAULT_INJECTION` are
/// absent, as they are for every host.
fn header_items(cc: &Path, tree: &Path) -> HeaderItems {
    let rel = "include/mjbridge.h";
    let o = Command::new(cc)
        .current_dir(tree)
        .args(["-E", "-dD", "-x", "c", "-std=c11", rel])
        .output()
        .expect("run the C preprocessor");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    let marker = format!("\"{rel}\"");
    let mut ours = false;
    let mut code = String::new();
    let mut items = HeaderItems::default();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# ") {
            if rest.starts_with(|c: char| c.is_ascii_digit()) {
                ours = rest.split_whitespace().nth(1) == Some(marker.as_str());
                continue;
            }
        }
        if !ours {
            continue;
        }
        if let Some(def) = line.strip_prefix("#define ") {
            let name: String = def
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            // The include guard: Doxygen recognizes it as one and never documents it.
            if name != "MJBRIDGE_H" {
                items.defines.insert(name);
            }
        } else if !line.starts_with('#') {
            code.push_str(line);
            code.push('\n');
        }
    }
    parse_declarations(&tokens(&code), &mut items);
    items
}

/// C tokens of preprocessed code: identifiers, numbers, string or character literals (kept
/// as one token each) and single punctuation characters.
fn tokens(code: &str) -> Vec<String> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        } else if c == '"' || c == '\'' {
            let start = i;
            i += 1;
            while i < chars.len() && chars[i] != c {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(chars[start..i.min(chars.len())].iter().collect());
        } else {
            out.push(c.to_string());
            i += 1;
        }
    }
    out
}

fn is_ident(t: &str) -> bool {
    t.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
}

/// The top-level declarations of the header: enums, typedefs (with or without a struct
/// body), forward struct declarations and function prototypes, inside or outside an
/// `extern "C"` block.
fn parse_declarations(t: &[String], items: &mut HeaderItems) {
    let mut i = 0;
    while i < t.len() {
        match t[i].as_str() {
            "extern" if t.get(i + 1).is_some_and(|s| s.starts_with('"')) => {
                i += 2;
                if t.get(i).map(String::as_str) == Some("{") {
                    i += 1;
                }
                continue;
            }
            "}" => {
                i += 1;
                continue;
            }
            _ => {}
        }
        // One declaration: up to the `;` outside every brace.
        let start = i;
        let mut depth = 0usize;
        while i < t.len() {
            match t[i].as_str() {
                "{" => depth += 1,
                "}" => depth -= 1,
                ";" if depth == 0 => break,
                _ => {}
            }
            i += 1;
        }
        let decl = &t[start..i];
        i += 1;
        declaration(decl, items);
    }
}

fn declaration(d: &[String], items: &mut HeaderItems) {
    let s = |k: usize| d.get(k).map(String::as_str).unwrap_or("");
    let body = |from: usize| {
        let open = d[from..].iter().position(|x| x == "{").map(|p| from + p)?;
        let close = d.iter().rposition(|x| x == "}")?;
        Some(&d[open + 1..close])
    };
    match s(0) {
        "enum" => {
            let values = body(1).expect("an enum with a body");
            let names = values
                .split(|x| x == ",")
                .filter_map(|v| v.first().cloned())
                .collect();
            items.enums.insert(s(1).to_owned(), names);
        }
        "struct" if d.len() == 2 => {} // a forward declaration (mjModel_, mjData_): MuJoCo's
        "typedef" => {
            if s(1) == "struct" && s(3) == "{" {
                let fields = body(3)
                    .unwrap()
                    .split(|x| x == ";")
                    .filter(|f| !f.is_empty())
                    .map(|f| {
                        // The field name is the last identifier before any array bound.
                        let end = f.iter().position(|x| x == "[").unwrap_or(f.len());
                        f[..end].iter().rev().find(|x| is_ident(x)).unwrap().clone()
                    })
                    .collect();
                items.structs.insert(s(2).to_owned(), fields);
            }
            // A function pointer type is named inside `(* name)`; any other by its last word.
            let name = d
                .windows(3)
                .find(|w| w[0] == "(" && w[1] == "*" && is_ident(&w[2]))
                .map(|w| w[2].clone())
                .unwrap_or_else(|| d.iter().rev().find(|x| is_ident(x)).unwrap().clone());
            items.typedefs.insert(name);
        }
        _ => {
            // Set attributes aside (`__attribute__((deprecated("...")))`, what MJB_DEPRECATED
            // expands to): the name is then the identifier before the first parenthesis.
            let mut plain = Vec::new();
            let mut deprecated = false;
            let mut k = 0;
            while k < d.len() {
                if d[k] == "__attribute__" || d[k] == "__declspec" {
                    let mut depth = 0;
                    k += 1;
                    while k < d.len() {
                        depth += i32::from(d[k] == "(") - i32::from(d[k] == ")");
                        deprecated |= d[k] == "deprecated" || d[k] == "__deprecated__";
                        k += 1;
                        if depth == 0 {
                            break;
                        }
                    }
                } else {
                    plain.push(d[k].clone());
                    k += 1;
                }
            }
            let paren = plain.iter().position(|x| x == "(");
            let name = match paren {
                Some(p) if p > 0 && is_ident(&plain[p - 1]) => plain[p - 1].clone(),
                _ => panic!("a declaration the test cannot read: {}", d.join(" ")),
            };
            if deprecated {
                items.deprecated.insert(name.clone());
            }
            items.functions.insert(name);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The reference as Doxygen wrote it (its XML output).

/// One documented (or not) entity of the reference.
#[derive(Debug, Default, Clone)]
struct Entry {
    described: bool,
    deprecated: bool,
}

#[derive(Debug, Default)]
struct ReferenceItems {
    /// (kind, name) -> entry, for the file's members: function, define, typedef, enum.
    members: BTreeMap<(String, String), Entry>,
    /// (enum, value) -> entry.
    enum_values: BTreeMap<(String, String), Entry>,
    /// Struct name -> (its own entry, field name -> entry).
    structs: BTreeMap<String, (Entry, BTreeMap<String, Entry>)>,
}

fn child<'a, 'i>(n: roxmltree::Node<'a, 'i>, tag: &str) -> Option<roxmltree::Node<'a, 'i>> {
    n.children().find(|c| c.has_tag_name(tag))
}

fn text_of(n: Option<roxmltree::Node>) -> String {
    n.map(|n| {
        n.descendants()
            .filter(|d| d.is_text())
            .filter_map(|d| d.text())
            .collect::<String>()
    })
    .unwrap_or_default()
}

/// Whether `n`'s own brief or detailed description has any text, and whether it carries a
/// `@deprecated` section.
fn entry(n: roxmltree::Node) -> Entry {
    let brief = text_of(child(n, "briefdescription"));
    let detailed = child(n, "detaileddescription");
    Entry {
        described: !(brief.trim().is_empty() && text_of(detailed).trim().is_empty()),
        deprecated: detailed.is_some_and(|d| {
            d.descendants().any(|x| {
                x.has_tag_name("xrefsect")
                    && x.attribute("id")
                        .is_some_and(|id| id.starts_with("deprecated"))
            })
        }),
    }
}

fn parse_xml(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn reference_items(xml: &Path) -> ReferenceItems {
    let index_text = parse_xml(&xml.join("index.xml"));
    let index = roxmltree::Document::parse(&index_text).unwrap();
    let mut r = ReferenceItems::default();
    for compound in index.descendants().filter(|n| n.has_tag_name("compound")) {
        let kind = compound.attribute("kind").unwrap();
        let name = text_of(child(compound, "name"));
        if !(kind == "struct" || (kind == "file" && name == "mjbridge.h")) {
            continue;
        }
        let refid = compound.attribute("refid").unwrap();
        let text = parse_xml(&xml.join(format!("{refid}.xml")));
        let doc = roxmltree::Document::parse(&text).unwrap();
        let def = doc
            .descendants()
            .find(|n| n.has_tag_name("compounddef"))
            .unwrap();
        let members = def.descendants().filter(|n| n.has_tag_name("memberdef"));
        if kind == "struct" {
            let fields = members
                .filter(|m| m.attribute("kind") == Some("variable"))
                .map(|m| (text_of(child(m, "name")), entry(m)))
                .collect();
            r.structs.insert(name, (entry(def), fields));
            continue;
        }
        for m in members {
            let mkind = m.attribute("kind").unwrap().to_owned();
            let mname = text_of(child(m, "name"));
            for v in m.children().filter(|c| c.has_tag_name("enumvalue")) {
                r.enum_values
                    .insert((mname.clone(), text_of(child(v, "name"))), entry(v));
            }
            r.members.insert((mkind, mname), entry(m));
        }
    }
    r
}

// ---------------------------------------------------------------------------------------------
// The comparison.

/// Every hole of the reference against the header, one line each (empty: none).
fn coverage(h: &HeaderItems, r: &ReferenceItems, mainpage: &str) -> Vec<String> {
    let mut p = Vec::new();
    let member = |kind: &str, name: &str| r.members.get(&(kind.to_owned(), name.to_owned()));
    let mut check = |what: String, e: Option<&Entry>| match e {
        None => p.push(format!(
            "{what} is declared in the header but absent from the reference"
        )),
        Some(e) if !e.described => p.push(format!("{what} has no description")),
        Some(_) => {}
    };
    for f in &h.functions {
        check(format!("function {f}"), member("function", f));
    }
    for d in &h.defines {
        check(format!("define {d}"), member("define", d));
    }
    for (e, values) in &h.enums {
        check(format!("enum {e}"), member("enum", e));
        for v in values {
            check(
                format!("enum value {v} (enum {e})"),
                r.enum_values.get(&(e.clone(), v.clone())),
            );
        }
    }
    for (s, fields) in &h.structs {
        let doc = r.structs.get(s);
        check(format!("struct {s}"), doc.map(|d| &d.0));
        for f in fields {
            check(
                format!("field {f} of struct {s}"),
                doc.and_then(|d| d.1.get(f)),
            );
        }
    }
    for t in &h.typedefs {
        // The reference is read as C++ (docs/api/Doxyfile): an enum's C typedef is the enum.
        let e = member("typedef", t)
            .or_else(|| member("enum", t))
            .or_else(|| r.structs.get(t).map(|d| &d.0));
        check(format!("typedef {t}"), e);
    }
    for f in &h.deprecated {
        if member("function", f).is_some_and(|e| !e.deprecated) {
            p.push(format!(
                "function {f} is declared deprecated but its comment has no @deprecated \
                 (naming the replacement)"
            ));
        }
    }
    // Nothing in the reference that a C host cannot see (a test-only declaration, say).
    for (kind, name) in r.members.keys() {
        if kind == "function" && !h.functions.contains(name) {
            p.push(format!(
                "the reference documents function {name}, which a host's compiler does not see \
                 in the header"
            ));
        }
    }
    for f in &h.functions {
        if !mainpage.contains(&format!("{f}()")) {
            p.push(format!(
                "function {f} is not listed on the main page (docs/api/mainpage.md)"
            ));
        }
    }
    p
}
