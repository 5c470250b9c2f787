//! What the repository keeps besides the code: `CHANGELOG.md` in the Keep a Changelog form with
//! an `[Unreleased]` section and an entry for the crate's version, and the license text the
//! Python package carries in its source tree (the project's `LICENSE`), and the colcon
//! packages' `package.xml` files (format 3, the crate's version).

use std::path::Path;

const SECTIONS: &[&str] = &[
    "Added",
    "Changed",
    "Deprecated",
    "Removed",
    "Fixed",
    "Security",
];

/// A release heading: its name, and for a version its number and date.
type Release = (String, Option<((u64, u64, u64), (u32, u32, u32))>);

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `X.Y.Z` as numbers.
fn semver(v: &str) -> Option<(u64, u64, u64)> {
    let mut it = v.split('.').map(|n| n.parse::<u64>().ok());
    let parsed = (it.next()??, it.next()??, it.next()??);
    it.next().is_none().then_some(parsed)
}

/// `YYYY-MM-DD`, checked for shape and ranges.
fn date(d: &str) -> Option<(u32, u32, u32)> {
    let b = d.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (y, m, day) = (
        d[0..4].parse().ok()?,
        d[5..7].parse().ok()?,
        d[8..10].parse().ok()?,
    );
    ((1..=12).contains(&m) && (1..=31).contains(&day)).then_some((y, m, day))
}

/// The changelog's rules: the first release heading is `## [Unreleased]`; every other one is
/// `## [X.Y.Z] - YYYY-MM-DD`, newest first (versions and dates never increase downwards); every
/// release has at least one `### <kind>` section of Keep a Changelog's six kinds and no other;
/// `version` has an entry.
fn check_changelog(text: &str, version: &str) -> Result<(), String> {
    let mut releases: Vec<Release> = Vec::new();
    let mut sections: Vec<usize> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let n = n + 1;
        if let Some(rest) = line.strip_prefix("## ") {
            let (name, tail) = rest
                .strip_prefix('[')
                .and_then(|r| r.split_once(']'))
                .ok_or_else(|| format!("line {n}: a release heading is `## [name]`: {line:?}"))?;
            if name == "Unreleased" {
                if !releases.is_empty() {
                    return Err(format!("line {n}: [Unreleased] must come first"));
                }
                if !tail.is_empty() {
                    return Err(format!("line {n}: [Unreleased] has no date: {line:?}"));
                }
                releases.push((name.into(), None));
            } else {
                let v = semver(name)
                    .ok_or_else(|| format!("line {n}: {name:?} is not a version X.Y.Z"))?;
                let d = tail
                    .strip_prefix(" - ")
                    .and_then(date)
                    .ok_or_else(|| format!("line {n}: `## [{name}] - YYYY-MM-DD`: {line:?}"))?;
                if let Some((prev, Some((pv, pd)))) = releases.last() {
                    if v >= *pv || d > *pd {
                        return Err(format!(
                            "line {n}: [{name}] is not older than [{prev}] above it"
                        ));
                    }
                }
                releases.push((name.into(), Some((v, d))));
            }
            sections.push(0);
        } else if let Some(kind) = line.strip_prefix("### ") {
            if !SECTIONS.contains(&kind) {
                return Err(format!(
                    "line {n}: `### {kind}` is not one of {}",
                    SECTIONS.join(", ")
                ));
            }
            match sections.last_mut() {
                Some(count) => *count += 1,
                None => return Err(format!("line {n}: `### {kind}` outside a release")),
            }
        }
    }
    match releases.first() {
        Some((name, None)) if name == "Unreleased" => {}
        _ => return Err("no `## [Unreleased]` section at the top".into()),
    }
    for ((name, _), count) in releases.iter().zip(&sections).skip(1) {
        if *count == 0 {
            return Err(format!("[{name}] lists no change (### Added, Fixed, ...)"));
        }
    }
    if !releases.iter().any(|(name, _)| name == version) {
        return Err(format!(
            "no `## [{version}] - YYYY-MM-DD` entry for the crate's version"
        ));
    }
    Ok(())
}

#[test]
fn changelog_has_unreleased_and_an_entry_for_the_crate_version() {
    let text = std::fs::read_to_string(root().join("CHANGELOG.md")).expect("CHANGELOG.md");
    if let Err(e) = check_changelog(&text, env!("CARGO_PKG_VERSION")) {
        panic!("CHANGELOG.md: {e}");
    }
}

/// The rules refuse what they are for: each mutation of a valid changelog fails, naming why.
#[test]
fn changelog_check_refuses_each_broken_form() {
    let good = "# Changelog\n\n## [Unreleased]\n\n### Added\n\n- a\n\n\
                ## [0.2.0] - 2026-11-30\n\n### Fixed\n\n- b\n\n\
                ## [0.1.0] - 2026-11-29\n\n### Added\n\n- c\n";
    assert_eq!(check_changelog(good, "0.2.0"), Ok(()));
    let cases: &[(&str, &str, &str)] = &[
        (
            "## [Unreleased]\n\n### Added\n\n",
            "",
            "no `## [Unreleased]`",
        ),
        (
            "## [0.2.0] - 2026-11-30",
            "## [0.2.1] - 2026-11-30",
            "no `## [0.2.0]",
        ),
        ("## [0.2.0] - 2026-11-30", "## [0.2.0]", "YYYY-MM-DD"),
        (
            "## [0.2.0] - 2026-11-30",
            "## [0.2.0] - 2026-13-30",
            "YYYY-MM-DD",
        ),
        (
            "## [0.2.0] - 2026-11-30",
            "## [0.2] - 2026-11-30",
            "not a version",
        ),
        (
            "## [0.2.0] - 2026-11-30",
            "## [0.0.9] - 2026-11-30",
            "not older",
        ),
        (
            "## [0.2.0] - 2026-11-30",
            "## [0.2.0] - 2026-11-28",
            "not older",
        ),
        ("### Fixed", "### Improved", "not one of"),
        ("### Fixed\n\n- b\n\n", "", "lists no change"),
        ("## [Unreleased]", "## Unreleased", "`## [name]`"),
    ];
    for (from, to, why) in cases {
        assert!(good.contains(from), "{from:?}");
        let bad = good.replacen(from, to, 1);
        match check_changelog(&bad, "0.2.0") {
            Ok(()) => panic!("accepted with {from:?} -> {to:?}:\n{bad}"),
            Err(e) => assert!(e.contains(why), "{from:?} -> {to:?}: {e}"),
        }
    }
    // [Unreleased] below a release.
    let moved = good.replacen("## [Unreleased]\n\n### Added\n\n- a\n\n", "", 1)
        + "\n## [Unreleased]\n\n### Added\n\n- a\n";
    let e = check_changelog(&moved, "0.2.0").unwrap_err();
    assert!(e.contains("must come first"), "{e}");
}

/// The Python package's source tree carries the project's license (its wheel's dist-info and
/// a source install take it from there).
#[test]
fn python_package_license_is_the_project_license() {
    let project = std::fs::read(root().join("LICENSE")).expect("LICENSE");
    let python = std::fs::read(root().join("bindings/python/LICENSE")).expect("python LICENSE");
    assert!(!project.is_empty());
    assert!(
        project == python,
        "bindings/python/LICENSE differs from LICENSE (copy it)"
    );
    let pyproject = std::fs::read_to_string(root().join("bindings/python/pyproject.toml")).unwrap();
    assert!(
        pyproject.contains("license = \"Apache-2.0\"") && pyproject.contains("\"LICENSE\""),
        "pyproject.toml names another license or not the LICENSE file"
    );
    let cargo = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    assert!(cargo.contains("license = \"Apache-2.0\""));
}

/// The colcon packages (`package.xml` of the checkout, `examples/ros2_downstream`): format 3,
/// build type cmake, the project's license and the crate's version; the example depends on
/// mjbridge. (tests/colcon.rs builds them.)
#[test]
fn package_xml_versions_are_the_crate_version() {
    for (path, name) in [
        ("package.xml", "mjbridge"),
        (
            "examples/ros2_downstream/package.xml",
            "mjbridge_downstream",
        ),
    ] {
        let text = std::fs::read_to_string(root().join(path)).expect(path);
        let doc = roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
        let package = doc.root_element();
        assert_eq!(package.tag_name().name(), "package", "{path}");
        assert_eq!(package.attribute("format"), Some("3"), "{path}: format");
        let child = |tag: &str| -> Vec<String> {
            package
                .descendants()
                .filter(|n| n.has_tag_name(tag))
                .map(|n| n.text().unwrap_or("").trim().to_owned())
                .collect()
        };
        assert_eq!(child("name"), [name], "{path}: name");
        assert_eq!(
            child("version"),
            [env!("CARGO_PKG_VERSION")],
            "{path}: the version is not Cargo.toml's"
        );
        assert_eq!(child("license"), ["Apache-2.0"], "{path}: license");
        assert_eq!(child("build_type"), ["cmake"], "{path}: build type");
        assert!(
            child("buildtool_depend").contains(&"cmake".to_owned()),
            "{path}"
        );
        if name == "mjbridge_downstream" {
            assert_eq!(child("depend"), ["mjbridge"], "{path}: depend");
        } else {
            // rosdep keys (rosdep/base.yaml, python.yaml) of what the build runs.
            for key in ["cargo", "rustc", "pkg-config", "python3"] {
                assert!(
                    child("buildtool_depend").contains(&key.to_owned()),
                    "{path}: no buildtool_depend {key}"
                );
            }
        }
    }
}
