//! The documentation, tested (docs/README.md, "How the documentation is tested"):
//! - every relative link in README.md, CHANGELOG.md, ARCHITECTURE.md, BENCHMARKS.md and
//!   docs/**/*.md resolves: the file or folder exists, and a `#anchor` names a heading of the
//!   target (GitHub's slugs) or an HTML `id`;
//! - every fenced code block of the pages this project writes is compiled or run here, or
//!   marked as an illustration in its info string: C and C++ blocks are compiled against the
//!   header (one compiler run per language, `-Wall -Wextra -Werror`) and run when they are
//!   programs, C# blocks are compiled with mcs beside the binding and run on Mono, Python
//!   blocks run against the built library, JSON blocks are parsed, and a `verbatim=PATH` block
//!   must be lines of a file the suite runs;
//! - the contract lists every outcome and reason of the header, the shipped model has the
//!   sizes the guides state, and the performance charts are what `scripts/perf_charts.py`
//!   makes of the committed data, byte for byte.

mod common;
#[path = "common/toolchain.rs"]
mod toolchain;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use std::collections::{BTreeMap, HashSet};
use std::path::{Component, Path, PathBuf};
use std::process::Command;
use toolchain::{lib_dir, out_dir, py_venv, root, tool};

/// Folders below docs/ whose pages another tool reads: docs/api/ holds the API reference's
/// Doxygen sources (scripts/apiref.sh), written in Doxygen's own syntax.
const OTHER_TOOLS: &[&str] = &["docs/api"];

/// The Markdown pages whose links are checked, relative to the repository.
fn linked_pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = [
        "README.md",
        "CHANGELOG.md",
        "ARCHITECTURE.md",
        "BENCHMARKS.md",
    ]
    .iter()
    .map(PathBuf::from)
    .filter(|p| root().join(p).is_file())
    .collect();
    pages.extend(docs_pages());
    pages
}

/// The pages whose code blocks are tested: everything this project writes as documentation
/// (CHANGELOG.md's blocks, if it ever has any, are release notes, not guides).
fn guide_pages() -> Vec<PathBuf> {
    linked_pages()
        .into_iter()
        .filter(|p| p != Path::new("CHANGELOG.md"))
        .collect()
}

fn docs_pages() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(root().join(dir)) else {
            return;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let rel = dir.join(e.file_name());
            if OTHER_TOOLS.iter().any(|g| rel == Path::new(g)) {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                walk(&rel, out);
            } else if rel.extension().is_some_and(|x| x == "md") {
                out.push(rel);
            }
        }
    }
    let mut out = Vec::new();
    walk(Path::new("docs"), &mut out);
    out
}

fn read(rel: &Path) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{}: {e}", rel.display()))
}

fn parser(text: &str) -> Parser<'_> {
    Parser::new_ext(
        text,
        Options::ENABLE_TABLES | Options::ENABLE_HEADING_ATTRIBUTES,
    )
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset].matches('\n').count() + 1
}

// ---- links and anchors ---------------------------------------------------------------------

/// GitHub's anchor for a heading's text: lower case; letters, digits, `_`, `-` and spaces kept
/// (spaces become `-`), everything else dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors a page offers: its headings' slugs (a repeated one gets `-1`, `-2`, ... as on
/// GitHub) and the `id`/`name` of HTML elements.
fn anchors(text: &str) -> HashSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = HashSet::new();
    let mut heading: Option<String> = None;
    for event in parser(text) {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                let s = slug(&heading.take().unwrap());
                let n = seen.entry(s.clone()).or_insert(0);
                out.insert(if *n == 0 {
                    s.clone()
                } else {
                    format!("{s}-{n}")
                });
                *n += 1;
            }
            Event::Html(h) | Event::InlineHtml(h) => {
                for attr in ["id=\"", "name=\""] {
                    let mut rest = &*h;
                    while let Some(i) = rest.find(attr) {
                        rest = &rest[i + attr.len()..];
                        if let Some(end) = rest.find('"') {
                            out.insert(rest[..end].to_owned());
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Every link and image destination of a page, with its line.
fn links(text: &str) -> Vec<(String, usize)> {
    parser(text)
        .into_offset_iter()
        .filter_map(|(event, range)| match event {
            Event::Start(Tag::Link { dest_url, .. })
            | Event::Start(Tag::Image { dest_url, .. }) => {
                Some((dest_url.into_string(), line_of(text, range.start)))
            }
            _ => None,
        })
        .collect()
}

/// A destination with a scheme (`https:`, `mailto:`) is not relative.
fn is_external(dest: &str) -> bool {
    match dest.find(':') {
        Some(i) => dest[..i]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)),
        None => false,
    }
}

/// `dir/../x` without touching the file system; None when it leaves the repository.
fn normalise(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::Normal(p) => out.push(p),
            _ => return None,
        }
    }
    Some(out)
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap()
}

/// What is wrong with one relative link of `page`, if anything.
fn check_link(page: &Path, dest: &str) -> Option<String> {
    if is_external(dest) {
        return None;
    }
    let (path, anchor) = match dest.split_once('#') {
        Some((p, a)) => (p, Some(a)),
        None => (dest, None),
    };
    let target = if path.is_empty() {
        page.to_path_buf()
    } else {
        match normalise(&page.parent().unwrap().join(percent_decode(path))) {
            Some(t) => t,
            None => return Some("leaves the repository".into()),
        }
    };
    let full = root().join(&target);
    if !full.exists() {
        return Some(format!("{} does not exist", target.display()));
    }
    if let Some(anchor) = anchor {
        if full.is_dir() || target.extension().is_none_or(|x| x != "md") {
            return Some(format!(
                "an anchor into {}, which is not a page",
                target.display()
            ));
        }
        let want = percent_decode(anchor);
        if !anchors(&read(&target)).contains(&want) {
            return Some(format!("{} has no anchor #{want}", target.display()));
        }
    }
    None
}

#[test]
fn every_relative_link_in_the_documentation_resolves() {
    let pages = linked_pages();
    assert!(pages.len() > 5, "documentation pages found: {pages:?}");
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in &pages {
        for (dest, line) in links(&read(page)) {
            if !is_external(&dest) {
                checked += 1;
            }
            if let Some(why) = check_link(page, &dest) {
                broken.push(format!("{}:{line}: ({dest}) {why}", page.display()));
            }
        }
    }
    println!("{checked} relative links in {} pages", pages.len());
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// A page's headings as (line, text), in order.
fn headings(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut heading: Option<(usize, String)> = None;
    for (event, range) in parser(text).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { .. }) => {
                heading = Some((line_of(text, range.start), String::new()))
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, h)) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => out.extend(heading.take()),
            _ => {}
        }
    }
    out
}

/// Problems of a page's headings: one heading text twice (a section pasted twice; its second
/// anchor is `-1`, which no link means), or a heading with another glued to it.
fn heading_problems(page: &str, text: &str) -> Vec<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut bad = Vec::new();
    for (line, h) in headings(text) {
        if h.contains("## ") {
            bad.push(format!("{page}:{line}: two headings on one line: {h:?}"));
        }
        if let Some(first) = seen.insert(h.clone(), line) {
            bad.push(format!(
                "{page}:{line}: {h:?} again (first at line {first})"
            ));
        }
    }
    bad
}

#[test]
fn every_page_names_each_section_once() {
    // CHANGELOG.md repeats "Added", "Fixed", ... under every version, as Keep a Changelog has it.
    let pages: Vec<PathBuf> = linked_pages()
        .into_iter()
        .filter(|p| !p.ends_with("CHANGELOG.md"))
        .collect();
    assert!(pages.len() > 5, "{pages:?}");
    let bad: Vec<String> = pages
        .iter()
        .flat_map(|p| heading_problems(&p.display().to_string(), &read(p)))
        .collect();
    assert!(bad.is_empty(), "headings:\n{}", bad.join("\n"));
    // The check finds what it looks for.
    let pasted = "# A\n\n## B\n\ntext\n\n## B\n\n## C## C\n";
    let found = heading_problems("x.md", pasted);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(
        found[0].starts_with("x.md:7:") && found[1].starts_with("x.md:9:"),
        "{found:?}"
    );
}

#[test]
fn link_checker_follows_github_slugs_and_refuses_what_does_not_exist() {
    assert_eq!(
        slug("What a checkpoint is valid for"),
        "what-a-checkpoint-is-valid-for"
    );
    assert_eq!(slug("C++ and CMake"), "c-and-cmake");
    assert_eq!(
        slug("`mjb_write_step_read` (one call)"),
        "mjb_write_step_read-one-call"
    );
    assert_eq!(slug("C#: Unity, Mono, .NET"), "c-unity-mono-net");
    assert_eq!(slug("Zoë's path"), "zoës-path");
    let page = "# Title\n\n## Twice\n\n## Twice\n\n<a id=\"here\"></a>\n";
    let a = anchors(page);
    for want in ["title", "twice", "twice-1", "here"] {
        assert!(a.contains(want), "{want} missing from {a:?}");
    }
    assert!(!a.contains("twice-2"));
    let readme = Path::new("README.md");
    assert_eq!(check_link(readme, "https://example.org/x"), None);
    assert_eq!(check_link(readme, "docs/README.md"), None);
    assert_eq!(check_link(readme, "docs/"), None);
    assert!(check_link(readme, "docs/no-such-page.md").is_some());
    assert!(check_link(readme, "#no-such-heading").is_some());
    assert!(check_link(readme, "../outside.md").is_some());
    assert!(check_link(readme, "include/mjbridge.h#x").is_some());
    let found =
        links("[a](x.md) `[b](y.md)` ![c](z.svg)\n\n```\n[d](w.md)\n```\n\n[e][r]\n\n[r]: v.md\n");
    let dests: Vec<&str> = found.iter().map(|(d, _)| d.as_str()).collect();
    assert_eq!(dests, ["x.md", "z.svg", "v.md"]);
}

// ---- code blocks ---------------------------------------------------------------------------

#[derive(Debug, Clone)]
struct Block {
    page: PathBuf,
    line: usize,
    lang: String,
    words: Vec<String>,
    text: String,
}

impl Block {
    fn at(&self) -> String {
        format!("{}:{}", self.page.display(), self.line)
    }
    fn has(&self, word: &str) -> bool {
        self.words.iter().any(|w| w == word)
    }
    fn value(&self, key: &str) -> Option<&str> {
        self.words
            .iter()
            .find_map(|w| w.strip_prefix(key).and_then(|r| r.strip_prefix('=')))
    }
}

/// Every code block of a page. An indented block cannot carry a marker, so it is returned with
/// the language `(indented)` and refused.
fn blocks_of(page: &Path) -> Vec<Block> {
    let text = read(page);
    let mut out = Vec::new();
    let mut current: Option<Block> = None;
    for (event, range) in parser(&text).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(kind)) => {
                let (lang, words) = match kind {
                    CodeBlockKind::Fenced(info) => {
                        let mut w = info.split_whitespace().map(str::to_owned);
                        (w.next().unwrap_or_default(), w.collect())
                    }
                    CodeBlockKind::Indented => ("(indented)".to_owned(), Vec::new()),
                };
                current = Some(Block {
                    page: page.to_path_buf(),
                    line: line_of(&text, range.start),
                    lang,
                    words,
                    text: String::new(),
                });
            }
            Event::Text(t) => {
                if let Some(b) = current.as_mut() {
                    b.text.push_str(&t);
                }
            }
            Event::End(TagEnd::CodeBlock) => out.push(current.take().unwrap()),
            _ => {}
        }
    }
    out
}

/// The checkout whose `bindings/` the blocks are built against: this repository, or the one
/// `MJB_DOCS_BINDINGS_FROM` names (to try the guides against a bindings branch before a merge).
fn bindings_root() -> PathBuf {
    std::env::var_os("MJB_DOCS_BINDINGS_FROM").map_or_else(root, PathBuf::from)
}

/// The languages this test compiles or runs, their file extension and prelude comment.
const TESTED: &[(&str, &str)] = &[
    ("c", "c"),
    ("cpp", "cpp"),
    ("csharp", "cs"),
    ("python", "py"),
    ("json", "json"),
];

/// The block's source as the test compiles or runs it: the block alone, or put in place of
/// the `{{block}}` line of its prelude (`tests/docs/NAME.EXT`), `{{name}}` replaced by `name`.
fn compose(b: &Block, ext: &str, name: &str) -> Result<String, String> {
    let Some(prelude) = b.value("prelude") else {
        return Ok(b.text.clone());
    };
    let path = root().join("tests/docs").join(format!("{prelude}.{ext}"));
    let template =
        std::fs::read_to_string(&path).map_err(|e| format!("prelude {}: {e}", path.display()))?;
    let mut out = String::new();
    let mut placed = false;
    for line in template.lines() {
        if line.contains("{{block}}") {
            out.push_str(&b.text);
            placed = true;
        } else {
            out.push_str(&line.replace("{{name}}", name));
            out.push('\n');
        }
    }
    if !placed {
        return Err(format!(
            "prelude {} has no {{{{block}}}} line",
            path.display()
        ));
    }
    Ok(out)
}

/// A `verbatim=PATH` block: its lines, in order, are lines of PATH (spaces at either end
/// aside), a file the suite itself runs.
fn check_verbatim(b: &Block, path: &str) -> Result<(), String> {
    let file = std::fs::read_to_string(root().join(path)).map_err(|e| format!("{path}: {e}"))?;
    let mut lines = file.lines().map(str::trim);
    for want in b.text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if !lines.any(|l| l == want) {
            return Err(format!("{want:?} is not (in this order) a line of {path}"));
        }
    }
    Ok(())
}

/// What the test does with each block, or why it cannot.
fn classify(b: &Block) -> Result<&'static str, String> {
    let known = ["illustration", "prelude", "verbatim"];
    for w in &b.words {
        let key = w.split('=').next().unwrap();
        if !known.contains(&key) {
            return Err(format!("unknown marker {w:?} (known: {known:?})"));
        }
    }
    if b.lang == "(indented)" {
        return Err("an indented code block: fence it and give it a language".into());
    }
    if b.has("illustration") {
        if b.words.len() > 1 {
            return Err("an illustration takes no other marker".into());
        }
        return Ok("illustration");
    }
    if let Some(path) = b.value("verbatim") {
        check_verbatim(b, path)?;
        return Ok("verbatim");
    }
    match TESTED.iter().find(|(l, _)| *l == b.lang) {
        Some((lang, _)) => Ok(lang),
        None => Err(format!(
            "a {:?} block is neither tested ({}) nor marked `illustration` or `verbatim=PATH`",
            b.lang,
            TESTED.iter().map(|t| t.0).collect::<Vec<_>>().join(", ")
        )),
    }
}

fn ext_of(lang: &str) -> &'static str {
    TESTED.iter().find(|(l, _)| *l == lang).unwrap().1
}

fn output_text(o: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A C or C++ program's source defines `main`.
fn is_program(source: &str) -> bool {
    source.contains("int main(")
}

/// Compile every C or C++ block in one compiler run (`-c`, one object per block), then link
/// and run those that are programs, from the repository's root (where the snippets' model
/// paths start). Returns failures.
fn native_blocks(blocks: &[(Block, String)], compiler: &Path, std: &str, ext: &str) -> Vec<String> {
    let dir = out_dir().join(format!("docs-{ext}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut files = Vec::new();
    for (i, (_, src)) in blocks.iter().enumerate() {
        let f = dir.join(format!("block{i}.{ext}"));
        std::fs::write(&f, src).unwrap();
        files.push(f);
    }
    if files.is_empty() {
        return Vec::new();
    }
    let o = Command::new(compiler)
        .current_dir(&dir)
        .arg(format!("-std={std}"))
        .args(["-Wall", "-Wextra", "-Werror", "-pthread", "-c"])
        .arg("-I")
        .arg(root().join("include"))
        .arg("-I")
        .arg(bindings_root().join("bindings/cpp"))
        .args(&files)
        .output()
        .expect("run the compiler");
    if !o.status.success() {
        let blocks_at: Vec<String> = blocks
            .iter()
            .enumerate()
            .map(|(i, (b, _))| format!("block{i}.{ext} = {}", b.at()))
            .collect();
        return vec![format!(
            "{} failed on the {ext} blocks ({}):\n{}",
            compiler.display(),
            blocks_at.join(", "),
            output_text(&o)
        )];
    }
    let mut failures = Vec::new();
    for (i, (b, src)) in blocks.iter().enumerate() {
        if !is_program(src) {
            continue;
        }
        let exe = dir.join(format!("block{i}"));
        let o = Command::new(compiler)
            .arg(dir.join(format!("block{i}.o")))
            .arg("-pthread")
            .arg("-L")
            .arg(lib_dir())
            .arg("-lmjbridge")
            .arg(format!("-Wl,-rpath,{}", lib_dir().display()))
            .arg("-o")
            .arg(&exe)
            .output()
            .unwrap();
        if !o.status.success() {
            failures.push(format!("{}: link failed:\n{}", b.at(), output_text(&o)));
            continue;
        }
        let o = Command::new(&exe).current_dir(root()).output().unwrap();
        if !o.status.success() {
            failures.push(format!(
                "{}: exited {:?}:\n{}",
                b.at(),
                o.status,
                output_text(&o)
            ));
        }
    }
    failures
}

/// The Python the bindings' tests use (`py-venv`, given numpy here if it lacks it;
/// tests/install.rs adds what its tests need to the same venv).
fn python() -> Option<PathBuf> {
    py_venv("numpy", &["numpy"])
}

/// Run every Python block (the binding from `bindings/python`, the library just built), a few
/// at a time.
fn python_blocks(blocks: &[(Block, String)], py: &Path) -> Vec<String> {
    let dir = out_dir().join("docs-py");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let lib = lib_dir();
    std::thread::scope(|s| {
        let handles: Vec<_> = blocks
            .iter()
            .enumerate()
            .map(|(i, (b, src))| {
                let f = dir.join(format!("block{i}.py"));
                std::fs::write(&f, src).unwrap();
                let lib = lib.clone();
                s.spawn(move || {
                    let o = Command::new(py)
                        .arg(&f)
                        .current_dir(root())
                        .env("PYTHONPATH", bindings_root().join("bindings/python"))
                        .env("MJBRIDGE_LIB", &lib)
                        .env("PYTHONDONTWRITEBYTECODE", "1")
                        .output()
                        .unwrap();
                    (!o.status.success()).then(|| {
                        format!(
                            "{}: python exited {:?}:\n{}",
                            b.at(),
                            o.status,
                            output_text(&o)
                        )
                    })
                })
            })
            .collect();
        handles
            .into_iter()
            .filter_map(|h| h.join().unwrap())
            .collect()
    })
}

/// Compile every C# block (each in its prelude, a class `DocBlockN` with `static void Run()`)
/// with the binding and one generated entry point in one mcs run, then run them all on Mono
/// against the built library.
fn csharp_blocks(blocks: &[(Block, String)], mcs: &Path, mono: &Path) -> Vec<String> {
    let dir = out_dir().join("docs-cs");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut files = vec![bindings_root().join("bindings/csharp/MjBridge.cs")];
    let mut main =
        String::from("static class DocBlocksMain {\n  static int Main() {\n    int failed = 0;\n");
    for (i, (b, src)) in blocks.iter().enumerate() {
        let f = dir.join(format!("block{i}.cs"));
        std::fs::write(&f, src).unwrap();
        files.push(f);
        main.push_str(&format!(
            "    try {{ DocBlock{i}.Run(); System.Console.WriteLine(\"block {i} ok\"); }}\n    \
             catch (System.Exception e) {{ failed++; System.Console.WriteLine(\"{} failed: \" + e); }}\n",
            b.at()
        ));
    }
    main.push_str("    return failed;\n  }\n}\n");
    let main_file = dir.join("main.cs");
    std::fs::write(&main_file, main).unwrap();
    files.push(main_file);
    let exe = dir.join("docs.exe");
    let o = Command::new(mcs)
        .arg(format!("-out:{}", exe.display()))
        .args(["-warn:4", "-warnaserror+", "-main:DocBlocksMain"])
        .args(&files)
        .output()
        .unwrap();
    if !o.status.success() {
        let at: Vec<String> = blocks
            .iter()
            .enumerate()
            .map(|(i, (b, _))| format!("block{i}.cs = {}", b.at()))
            .collect();
        return vec![format!(
            "mcs failed ({}):\n{}",
            at.join(", "),
            output_text(&o)
        )];
    }
    let o = Command::new(mono)
        .arg("--debug")
        .arg(&exe)
        .current_dir(root())
        .env("LD_LIBRARY_PATH", lib_dir())
        .output()
        .unwrap();
    let text = output_text(&o);
    if o.status.success() {
        Vec::new()
    } else {
        vec![format!("C# blocks on Mono ({:?}):\n{text}", o.status)]
    }
}

#[test]
fn every_code_block_is_compiled_run_or_marked_as_an_illustration() {
    let started = std::time::Instant::now();
    let mut failures = Vec::new();
    let mut by_lang: BTreeMap<&'static str, Vec<(Block, String)>> = BTreeMap::new();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for page in guide_pages() {
        for (i, b) in blocks_of(&page).into_iter().enumerate() {
            match classify(&b) {
                Err(why) => failures.push(format!("{}: {why}", b.at())),
                Ok(kind) => {
                    let label = match kind {
                        "illustration" | "verbatim" => format!("{kind} ({})", b.lang),
                        k => k.to_owned(),
                    };
                    *counts.entry(label).or_default() += 1;
                    if kind == "illustration" || kind == "verbatim" {
                        continue;
                    }
                    let name = format!("DocBlock{}", by_lang.get(kind).map_or(0, Vec::len));
                    match compose(&b, ext_of(kind), &name) {
                        Ok(src) => by_lang.entry(kind).or_default().push((b, src)),
                        Err(e) => failures.push(format!("{} (block {i}): {e}", b.at())),
                    }
                }
            }
        }
    }
    println!("code blocks: {counts:?}");
    let none = Vec::new();
    for (b, src) in by_lang.get("json").unwrap_or(&none) {
        if let Err(e) = serde_json::from_str::<serde_json::Value>(src) {
            failures.push(format!("{}: not JSON: {e}", b.at()));
        }
    }
    std::thread::scope(|s| {
        let c = s.spawn(|| match tool("CC", "cc") {
            Some(cc) => native_blocks(by_lang.get("c").unwrap_or(&none), &cc, "c11", "c"),
            None => Vec::new(),
        });
        let cpp = s.spawn(|| match tool("CXX", "c++") {
            Some(cxx) => native_blocks(by_lang.get("cpp").unwrap_or(&none), &cxx, "c++17", "cpp"),
            None => Vec::new(),
        });
        let cs = s.spawn(|| match (tool("MCS", "mcs"), tool("MONO", "mono")) {
            (Some(mcs), Some(mono)) => {
                csharp_blocks(by_lang.get("csharp").unwrap_or(&none), &mcs, &mono)
            }
            _ => Vec::new(),
        });
        let py = s.spawn(|| match python() {
            Some(py) => python_blocks(by_lang.get("python").unwrap_or(&none), &py),
            None => Vec::new(),
        });
        for (lang, h) in [("C", c), ("C++", cpp), ("C#", cs), ("Python", py)] {
            failures.extend(h.join().unwrap());
            println!(
                "{lang} blocks done at {:.1} s",
                started.elapsed().as_secs_f64()
            );
        }
    });
    println!("tested in {:.1} s", started.elapsed().as_secs_f64());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn block_markers_are_checked_not_trusted() {
    let b = |lang: &str, words: &[&str], text: &str| Block {
        page: PathBuf::from("README.md"),
        line: 1,
        lang: lang.into(),
        words: words.iter().map(|w| w.to_string()).collect(),
        text: text.into(),
    };
    assert_eq!(classify(&b("c", &[], "int x;")), Ok("c"));
    assert_eq!(
        classify(&b("sh", &["illustration"], "rm -rf /")),
        Ok("illustration")
    );
    assert!(
        classify(&b("sh", &[], "make")).is_err(),
        "an unmarked shell block"
    );
    assert!(
        classify(&b("", &[], "a tree")).is_err(),
        "an unmarked block without a language"
    );
    assert!(
        classify(&b("c", &["ilustration"], "")).is_err(),
        "a misspelt marker"
    );
    assert!(classify(&b("(indented)", &[], "x")).is_err());
    assert!(classify(&b("c", &["illustration", "prelude=c_endpoint"], "")).is_err());
    assert_eq!(
        classify(&b(
            "sh",
            &["verbatim=scripts/test.sh"],
            "bash scripts/tsan.sh\n"
        )),
        Ok("verbatim")
    );
    assert!(
        classify(&b(
            "sh",
            &["verbatim=scripts/test.sh"],
            "bash scripts/nothing.sh\n"
        ))
        .is_err(),
        "a command the named file does not run"
    );
    let missing = compose(&b("c", &["prelude=no_such_prelude"], "x"), "c", "n");
    assert!(missing.is_err());
}

// ---- facts the pages state -----------------------------------------------------------------

/// The values of a C enum of the header, in order.
fn enum_values(header: &str, name: &str) -> Vec<String> {
    let start = header
        .find(&format!("enum {name}\n"))
        .unwrap_or_else(|| panic!("enum {name} not in the header"));
    let body = &header[start..];
    let body = &body[..body.find("};").unwrap()];
    body.lines()
        .map(str::trim)
        .filter(|l| l.starts_with("MJB_") && l.contains(" = "))
        .map(|l| l.split(' ').next().unwrap().to_owned())
        .collect()
}

/// The contract page names every outcome and every reason the header defines.
#[test]
fn the_contract_lists_every_outcome_and_reason() {
    let header = read(Path::new("include/mjbridge.h"));
    let contract = read(Path::new("docs/contract.md"));
    let outcomes = enum_values(&header, "mjb_outcome");
    let reasons = enum_values(&header, "mjb_reason");
    assert!(
        outcomes.len() >= 7 && reasons.len() >= 48,
        "{outcomes:?} {reasons:?}"
    );
    let missing: Vec<&String> = outcomes
        .iter()
        .chain(&reasons)
        .filter(|name| !contract.contains(&format!("`{name}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/contract.md does not name {missing:?}"
    );
}

/// The model the snippets are written for has the sizes and names the guides state.
#[test]
fn the_shipped_model_has_the_sizes_the_guides_state() {
    let path = root().join("examples/models/cart_pole.xml");
    let ep = common::open(&format!(
        "{{\"model\":{{\"xml_path\":{}}}}}",
        common::js(&path.to_string_lossy())
    ));
    let d = ep.dims();
    assert_eq!((d.nq, d.nv, d.nu, d.na, d.nsensordata), (13, 11, 2, 0, 8));
    assert_eq!((d.nbody, d.nmocap, d.neq), (6, 1, 1));
    let stated = "nq 13, nv 11, nu 2";
    for page in [
        "docs/c.md",
        "docs/cpp.md",
        "docs/csharp.md",
        "docs/python.md",
    ] {
        assert!(
            read(Path::new(page)).contains(stated),
            "{page} does not state the model's sizes ({stated})"
        );
    }
}

/// `scripts/perf_charts.py` run on the committed data writes the committed charts, byte for
/// byte (python3's standard library only).
#[test]
fn performance_charts_are_what_the_script_makes_of_the_committed_data() {
    let Some(python) = tool("PYTHON", "python3") else {
        return;
    };
    let out = out_dir().join("perf-charts");
    let _ = std::fs::remove_dir_all(&out);
    let o = Command::new(&python)
        .arg(root().join("scripts/perf_charts.py"))
        .arg("--out")
        .arg(&out)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    assert!(o.status.success(), "perf_charts.py: {}", output_text(&o));
    let svgs = |dir: &Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".svg"))
            .collect();
        v.sort();
        v
    };
    let committed = root().join("docs/perf");
    assert_eq!(svgs(&out), svgs(&committed), "chart files");
    assert!(!svgs(&out).is_empty());
    for name in svgs(&out) {
        let made = std::fs::read(out.join(&name)).unwrap();
        let kept = std::fs::read(committed.join(&name)).unwrap();
        assert!(
            made == kept,
            "docs/perf/{name} is not what scripts/perf_charts.py makes of docs/perf/data: run \
             `python3 scripts/perf_charts.py` and commit the result"
        );
    }
    // Every chart is shown on the performance page.
    let page = read(Path::new("docs/performance.md"));
    for name in svgs(&out) {
        assert!(
            page.contains(&format!("(perf/{name})")),
            "docs/performance.md does not show {name}"
        );
    }
}

/// `scripts/perf_charts.py --read BENCH FILE` finds the figures in what each bench prints (the
/// samples in tests/docs/bench_output/ are real output of short runs on a loaded machine: a
/// format, not a measurement).
#[test]
fn performance_charts_read_the_benches_output() {
    let Some(python) = tool("PYTHON", "python3") else {
        return;
    };
    let data = out_dir().join("perf-data");
    let _ = std::fs::remove_dir_all(&data);
    let read = |bench: &str| -> serde_json::Value {
        let sample = root().join(format!("tests/docs/bench_output/{bench}.txt"));
        let o = Command::new(&python)
            .arg(root().join("scripts/perf_charts.py"))
            .args(["--read", bench])
            .arg(&sample)
            .arg("--data")
            .arg(&data)
            .arg("--no-charts")
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .output()
            .unwrap();
        assert!(o.status.success(), "--read {bench}: {}", output_text(&o));
        let text = std::fs::read_to_string(data.join(format!("{bench}.json"))).unwrap();
        serde_json::from_str(&text).unwrap()
    };
    let perf = read("perf");
    assert_eq!(perf["figures"]["step / mj_step"]["walker (own)"], 0.57);
    assert_eq!(
        perf["figures"]["restore / serde parse"]["walker (own)"],
        0.78
    );
    assert!(perf["source"].as_str().unwrap().contains("MuJoCo 4.0.0"));
    let rp = read("restore_points");
    let apply = &rp["figures"]["apply / mj_setState + mj_getState + compare"];
    assert_eq!(apply["humanoid (shared)"], 7.604);
    assert_eq!(apply["1032 boxes (own)"], 0.823);
    assert_eq!(
        rp["figures"]["capture+free / mj_getState into a kept buffer"]["humanoid (shared)"],
        1.783
    );
    let frames = read("frames");
    assert_eq!(frames["figures"]["frame read / memcpy"]["humanoid"], 5.31);
    assert_eq!(
        frames["figures"]["prepared read / memcpy"]["humanoid"],
        2.32
    );
    assert_eq!(
        frames["figures"]["host loop / MuJoCo directly"]["many_bodies"],
        1.043
    );
    let py = read("python_rl");
    let skip5 = &py["figures"]["mjbridge / MuJoCo throughput, frame skip 5"];
    assert_eq!(skip5["host"], 0.906);
    assert_eq!(skip5["humanoid"], 0.998);
    assert_eq!(
        py["figures"]["restore / (setState + forward)"]["humanoid"],
        0.52
    );
    assert!(py["source"]
        .as_str()
        .unwrap()
        .starts_with("python_rl.txt (mjbridge 0.3.0 (engine"));
    let scaling = read("scaling");
    assert_eq!(
        scaling["figures"]["bridge / raw throughput, N = 2"]["many_bodies.xml"],
        0.962
    );
}
