//! Functions a reader can hold: no function or method in `src/` (the library and the
//! `mjbridge` command) or `build.rs` runs over 100 lines, counted from the line of its `fn`
//! keyword to the line of its closing brace (doc comments and attributes not included).
//! An exception is named here with its reason, and an exception that no longer applies (the
//! function is gone or short now) fails too, so the list only ever shrinks.

use std::path::{Path, PathBuf};

use syn::visit::Visit;

const LIMIT: usize = 100;

/// `(file, function, reason)`: the functions allowed over the limit, and why. `function` is
/// `name` for a free function, `Type::name` for a method.
const EXCEPTIONS: &[(&str, &str, &str)] = &[];

/// A function found over the limit: where it starts, its name and its length in lines.
#[derive(Debug, PartialEq, Eq)]
struct Long {
    file: String,
    line: usize,
    name: String,
    lines: usize,
}

/// Collects the functions of one file that run over `limit` lines.
struct Finder<'a> {
    file: &'a str,
    limit: usize,
    /// The `impl`/`trait` blocks around the current item: their type's name.
    owners: Vec<String>,
    found: Vec<Long>,
}

impl Finder<'_> {
    fn check(&mut self, name: &syn::Ident, fn_token: &syn::token::Fn, body: &syn::Block) {
        let start = fn_token.span.start().line;
        let end = body.brace_token.span.close().end().line;
        let lines = end + 1 - start;
        if lines > self.limit {
            let name = match self.owners.last() {
                Some(owner) => format!("{owner}::{name}"),
                None => name.to_string(),
            };
            self.found.push(Long {
                file: self.file.to_string(),
                line: start,
                name,
                lines,
            });
        }
    }
}

/// The last segment of a type's path (`Reader` for `impl<'a> doc::Reader<'a>`).
fn type_name(ty: &syn::Type) -> String {
    match ty {
        syn::Type::Path(p) => p
            .path
            .segments
            .last()
            .map_or_else(|| "?".to_string(), |s| s.ident.to_string()),
        _ => "?".to_string(),
    }
}

impl<'ast> Visit<'ast> for Finder<'_> {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        // A function inside a function or a block is named on its own.
        let outer = std::mem::take(&mut self.owners);
        self.check(&f.sig.ident, &f.sig.fn_token, &f.block);
        syn::visit::visit_item_fn(self, f);
        self.owners = outer;
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        self.owners.push(type_name(&i.self_ty));
        syn::visit::visit_item_impl(self, i);
        self.owners.pop();
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.check(&f.sig.ident, &f.sig.fn_token, &f.block);
        syn::visit::visit_impl_item_fn(self, f);
    }

    fn visit_item_trait(&mut self, t: &'ast syn::ItemTrait) {
        self.owners.push(t.ident.to_string());
        syn::visit::visit_item_trait(self, t);
        self.owners.pop();
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(body) = &f.default {
            self.check(&f.sig.ident, &f.sig.fn_token, body);
        }
        syn::visit::visit_trait_item_fn(self, f);
    }
}

/// The functions of `source` (the text of `file`) over `limit` lines.
fn long_functions(file: &str, source: &str, limit: usize) -> Vec<Long> {
    let parsed = syn::parse_file(source).unwrap_or_else(|e| {
        let at = e.span().start();
        panic!("{file}:{}:{}: does not parse: {e}", at.line, at.column + 1)
    });
    let mut finder = Finder {
        file,
        limit,
        owners: Vec::new(),
        found: Vec::new(),
    };
    finder.visit_file(&parsed);
    finder.found
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_function_runs_over_a_hundred_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("build.rs")];
    rust_files(&root.join("src"), &mut files);
    files.sort();
    assert!(
        files
            .iter()
            .any(|f| f.ends_with("src/bin/mjbridge/main.rs")),
        "the command's sources are read too"
    );
    let mut long = Vec::new();
    for path in &files {
        let rel = path
            .strip_prefix(root)
            .expect("under the root")
            .to_string_lossy()
            .replace('\\', "/");
        let source = std::fs::read_to_string(path).expect("read source");
        long.extend(long_functions(&rel, &source, LIMIT));
    }
    let excepted = |l: &Long| {
        EXCEPTIONS
            .iter()
            .any(|(file, name, _)| *file == l.file && *name == l.name)
    };
    let mut problems: Vec<String> = long
        .iter()
        .filter(|l| !excepted(l))
        .map(|l| {
            format!(
                "{}:{}: `{}` runs {} lines (at most {LIMIT}): split it, or name it in EXCEPTIONS with the reason",
                l.file, l.line, l.name, l.lines
            )
        })
        .collect();
    for (file, name, reason) in EXCEPTIONS {
        assert!(
            !reason.trim().is_empty(),
            "{file} `{name}`: an exception says why"
        );
        if !long.iter().any(|l| l.file == *file && l.name == *name) {
            problems.push(format!(
                "{file}: `{name}` is no longer over {LIMIT} lines (or is gone): remove its exception"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The count is from the `fn` line to the closing brace, for free functions, methods, trait
/// defaults and functions nested in functions; a function of exactly the limit passes.
#[test]
fn length_counts_from_fn_to_closing_brace() {
    let body = |n: usize| "    let _x = 1;\n".repeat(n);
    // 1 line `fn`, n body lines, 1 line `}`.
    let source = format!(
        "/// doc\n#[inline]\nfn exact() {{\n{}}}\n\
         fn over() {{\n{}}}\n\
         struct S;\nimpl S {{\n    fn method(&self) {{\n{}    }}\n}}\n\
         trait T {{\n    fn provided(&self) {{\n{}    }}\n    fn required(&self);\n}}\n\
         fn outer() {{\n    fn inner() {{\n{}    }}\n}}\n",
        body(98),
        body(99),
        body(99),
        body(99),
        body(99),
    );
    let found = long_functions("x.rs", &source, LIMIT);
    let names: Vec<(&str, usize)> = found.iter().map(|l| (l.name.as_str(), l.lines)).collect();
    assert_eq!(
        names,
        [
            ("over", 101),
            ("S::method", 101),
            ("T::provided", 101),
            ("outer", 103),
            ("inner", 101),
        ]
    );
    assert_eq!(
        found[0].line, 103,
        "the line of `fn`, not of its doc comment"
    );
}
