//! The committed header is exactly what cbindgen generates from the ABI's room, `src/ffi/`
//! (nothing else of the crate reaches it), and every name in it carries the project's prefix.
//! `MJB_BLESS=1 cargo test --test header` rewrites it.

use std::path::Path;

#[test]
fn committed_header_matches_cbindgen_output() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut config =
        cbindgen::Config::from_file(root.join("cbindgen.toml")).expect("cbindgen.toml");
    // The version comes from Cargo.toml, so the header can never disagree with mjb_version().
    let version = format!(
        "\n\n/**\n \
         * The version of the bridge this header belongs to, as text. Compare it with\n \
         * mjb_version() at run time to see which library a host actually loaded.\n \
         */\n\
         #define MJB_VERSION \"{}\"\n\n\
         /** The major part of #MJB_VERSION. */\n\
         #define MJB_VERSION_MAJOR {}\n\n\
         /**\n \
         * The minor part of #MJB_VERSION. Within one major version the ABI only grows: a host\n \
         * built against this header runs with a library of this minor version or a later one.\n \
         */\n\
         #define MJB_VERSION_MINOR {}\n\n\
         /** The patch part of #MJB_VERSION. */\n\
         #define MJB_VERSION_PATCH {}",
        env!("CARGO_PKG_VERSION"),
        env!("CARGO_PKG_VERSION_MAJOR"),
        env!("CARGO_PKG_VERSION_MINOR"),
        env!("CARGO_PKG_VERSION_PATCH"),
    );
    config.after_includes = Some(config.after_includes.unwrap_or_default() + &version);
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_src(root.join("src/ffi/mod.rs"))
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header")
        .write(&mut generated);
    let path = root.join("include/mjbridge.h");
    if std::env::var_os("MJB_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write header");
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "include/mjbridge.h drifted from the Rust sources; run `MJB_BLESS=1 cargo test --test header` and commit it"
    );
}

/// Names of the header without the project's prefix, each with why it is there.
const UNPREFIXED: &[(&str, &str)] = &[
    (
        "mjModel_",
        "MuJoCo's model, declared by tag so the header needs no mujoco.h",
    ),
    ("mjData_", "MuJoCo's data, declared by tag"),
    (
        "MAX_WINDOW_TICKS",
        "deprecated alias of MJB_MAX_WINDOW_TICKS (0.4.0's header had it)",
    ),
    (
        "MAX_WINDOW_KEYFRAMES",
        "deprecated alias of MJB_MAX_WINDOW_KEYFRAMES (0.4.0's header)",
    ),
];

/// C's words and the compilers' that stand where a declared name could.
const C_WORDS: &[&str] = &[
    "struct",
    "enum",
    "union",
    "typedef",
    "const",
    "void",
    "char",
    "int",
    "bool",
    "double",
    "float",
    "size_t",
    "int32_t",
    "uint32_t",
    "int64_t",
    "uint64_t",
    "uint8_t",
    "int8_t",
    "uint16_t",
    "int16_t",
    "sizeof",
    "defined",
    "__declspec",
    "__attribute__",
    "deprecated",
    "dllimport",
    "extern",
    "if",
    "define",
    "UINT32_MAX",
];

/// The names a header declares: macros, tags, typedefs, enum members and functions (comments
/// and string literals dropped first).
fn declared_names(header: &str) -> Vec<String> {
    let mut code = String::new();
    let mut rest = header;
    while let Some(i) = rest.find(['/', '"']) {
        code.push_str(&rest[..i]);
        let r = &rest[i..];
        if let Some(body) = r.strip_prefix("/*") {
            rest = body.find("*/").map_or("", |e| &body[e + 2..]);
        } else if let Some(body) = r.strip_prefix("//") {
            rest = body.find('\n').map_or("", |e| &body[e..]);
        } else if let Some(body) = r.strip_prefix('"') {
            rest = body.find('"').map_or("", |e| &body[e + 1..]);
        } else {
            code.push('/');
            rest = &r[1..];
        }
    }
    code.push_str(rest);
    // Each word of a line with what follows it.
    let words = |line: &str| -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut start = None;
        for (i, c) in line.char_indices().chain([(line.len(), ' ')]) {
            let word_char = c.is_alphanumeric() || c == '_';
            match (word_char, start) {
                (true, None) => start = Some(i),
                (false, Some(s)) => {
                    out.push((line[s..i].to_owned(), line[i..].trim_start().to_owned()));
                    start = None;
                }
                _ => {}
            }
        }
        out
    };
    let mut names = Vec::new();
    for line in code.lines().map(str::trim) {
        let w = words(line);
        let Some((first, _)) = w.first() else {
            continue;
        };
        if line.starts_with('#') {
            if matches!(first.as_str(), "define" | "undef") && w.len() > 1 {
                names.push(w[1].0.clone());
            }
            continue;
        }
        // `struct x {`, `enum x {`, `typedef ... name;`, `typedef r (*name)(...)`, `} name;`,
        // `NAME = 1,`, `name(` (a function; not `(*name)(` inside one).
        let fn_pointer = line.find("(*").map(|i| {
            line[i + 2..]
                .split(')')
                .next()
                .unwrap_or("")
                .trim()
                .to_owned()
        });
        for (i, (word, after)) in w.iter().enumerate() {
            let tagged = i > 0 && matches!(w[i - 1].0.as_str(), "struct" | "enum" | "union");
            let called = after.starts_with('(') && fn_pointer.is_none();
            let member = after.starts_with('=');
            let typedef_end = first == "typedef"
                && fn_pointer.is_none()
                && i == w.len() - 1
                && line.ends_with(';');
            let pointer_name = first == "typedef" && fn_pointer.as_deref() == Some(word.as_str());
            let closing = line.starts_with('}') && i == w.len() - 1;
            if (tagged || called || member || typedef_end || pointer_name || closing)
                && !C_WORDS.contains(&word.as_str())
                && !word.chars().next().unwrap().is_ascii_digit()
            {
                names.push(word.clone());
            }
        }
    }
    names.sort();
    names.dedup();
    names
}

fn prefixed(name: &str) -> bool {
    ["mjb_", "MJB_", "MJBRIDGE_"]
        .iter()
        .any(|p| name.starts_with(p))
}

#[test]
fn every_name_in_the_header_carries_the_prefix() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let header = std::fs::read_to_string(root.join("include/mjbridge.h")).unwrap();
    let names = declared_names(&header);
    assert!(
        names.len() > 150 && names.iter().any(|n| n == "mjb_endpoint_open"),
        "the scan finds the header's names: {names:?}"
    );
    let bad: Vec<&String> = names
        .iter()
        .filter(|n| !prefixed(n) && !UNPREFIXED.iter().any(|(u, _)| u == n))
        .collect();
    assert!(
        bad.is_empty(),
        "names in include/mjbridge.h without the mjb_/MJB_/MJBRIDGE_ prefix (an item of the \
         ABI's room that should not be public, or one to name in UNPREFIXED with why): {bad:?}"
    );
    for (u, why) in UNPREFIXED {
        assert!(
            names.iter().any(|n| n == u),
            "{u} ({why}) is no longer in the header"
        );
    }
    // The scan sees what it looks for: each kind of declaration, unprefixed.
    let leaky = "#define LIMIT 3\nstruct tag_x;\ntypedef struct y { int a; } y_t;\n\
                 enum e { E_ONE = 1, };\nMJB_API int32_t do_it(int32_t a);\n\
                 typedef void (*cb_fn)(void *user, int32_t level);\n";
    let found = declared_names(leaky);
    for want in ["LIMIT", "tag_x", "y", "y_t", "e", "E_ONE", "do_it", "cb_fn"] {
        assert!(
            found.iter().any(|n| n == want),
            "{want} not found in {found:?}"
        );
    }
    assert!(
        !found
            .iter()
            .any(|n| n == "user" || n == "level" || n == "a"),
        "parameters and members are not declared names: {found:?}"
    );
}
